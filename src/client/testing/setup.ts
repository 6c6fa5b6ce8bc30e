import { configure } from '@testing-library/dom';
import './setup-happy-dom.ts';

// The first render of a lazy route transforms React Aria's modules on the fly, which on a loaded
// two-core machine takes more than Testing Library's default second to wait for.
configure({ asyncUtilTimeout: 5000 });
