import { createContext, use } from 'react';
import {
  deviceBudgetWords,
  deviceCallBudgetOf,
  type DeviceCallBudget,
} from '#domain/device-budget.ts';

/** The region's budget of upstream calls per device (src/domain/device-budget.ts), as the session says it. */
export const DeviceBudgetContext = createContext<DeviceCallBudget>(deviceCallBudgetOf(undefined));

/** The budget in force in an operator's words, e.g. "two per device per minute". */
export function useDeviceBudgetWords(): string {
  return deviceBudgetWords(use(DeviceBudgetContext));
}
