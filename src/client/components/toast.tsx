import { isValidElement, useCallback, useEffect, type ReactElement, type RefObject } from 'react';
import { Link } from 'react-router';
import {
  Button,
  Text,
  UNSTABLE_Toast as AriaToast,
  UNSTABLE_ToastContent as AriaToastContent,
  UNSTABLE_ToastQueue as AriaToastQueue,
  UNSTABLE_ToastRegion as AriaToastRegion,
} from 'react-aria-components';
import { z } from 'zod';
import './toast.css';

/* The one module touching React Aria's `UNSTABLE_` toasts: a rename upstream is one edit here (docs/decisions/003-component-kit.md). */

/** How an outcome went; the tone colours the toast's edge and is said in its words too. */
export type ToastTone = 'success' | 'info' | 'warning' | 'danger';

export interface ToastAction {
  label: string;
  /** Runs once; the toast closes right after. */
  onAction: () => void;
}

export interface ToastLink {
  label: string;
  /** An app path, e.g. `/batches/b_1`. */
  to: string;
}

export interface ToastOptions {
  title: string;
  /** One more sentence; an element when it follows something live (a queued change's line). */
  description?: string | ReactElement | undefined;
  tone: ToastTone;
  action?: ToastAction | undefined;
  link?: ToastLink | undefined;
  /** Time shown without hover or focus, ms, at least 5000 so it can be read; default 8000; `null` until closed. */
  timeoutMs?: number | null | undefined;
}

const DEFAULT_TIMEOUT_MS = 8000;

const ToastOptionsSchema = z.object({
  title: z.string().trim().min(1),
  description: z
    .union([z.string(), z.custom<ReactElement>((value) => isValidElement(value))])
    .optional(),
  tone: z.enum(['success', 'info', 'warning', 'danger']),
  action: z
    .object({
      label: z.string().trim().min(1),
      onAction: z.custom<() => void>((value) => typeof value === 'function'),
    })
    .optional(),
  link: z.object({ label: z.string().trim().min(1), to: z.string().startsWith('/') }).optional(),
  timeoutMs: z.number().int().min(5000).nullable().optional(),
});

type QueuedContent = Omit<ToastOptions, 'timeoutMs'>;

const queue = new AriaToastQueue<QueuedContent>({ maxVisibleToasts: 3 });

/**
 * Shows a toast in {@link ToastRegion}: an outcome, optionally a link and one action (Undo). F6
 * reaches the toasts; focus returns when a focused toast closes.
 *
 * @returns the toast's key, for {@link closeToast}.
 * @throws ZodError on an empty title, a link that is not an app path, a timeout under 5000 ms.
 */
export function showToast(options: ToastOptions): string {
  ToastOptionsSchema.parse(options);
  const { timeoutMs = DEFAULT_TIMEOUT_MS, ...content } = options;
  return queue.add(content, timeoutMs === null ? {} : { timeout: timeoutMs });
}

/** Closes a toast shown by {@link showToast}; nothing happens when it is gone already. */
export function closeToast(key: string): void {
  queue.close(key);
}

/** Closes every toast, e.g. on sign-out, so no outcome of one session shows in the next. */
export function clearToasts(): void {
  queue.clear();
}

const TONE_WORDS: Record<ToastTone, string> = {
  success: 'Done',
  info: 'Note',
  warning: 'Warning',
  danger: 'Problem',
};

/** Gap kept between the toasts and what the page shows above them, in CSS px (`--space-4`). */
const STRIP_GAP_PX = 16;

/**
 * Reserves the window's bottom strip for the toasts, so a toast never covers a control: sets
 * `--toast-reserve` (px) and `data-toasts` on the root while toasts show; the shell's CSS then
 * scrolls the page in a box ending above the strip.
 *
 * @returns a callback ref for the toast region.
 */
function useToastStrip(pageRef: RefObject<HTMLElement | null> | undefined) {
  return useCallback(
    (region: HTMLElement | null) => {
      if (!region) return;
      const root = document.documentElement;
      const fit = () => {
        const reservePx = Math.ceil(window.innerHeight - region.getBoundingClientRect().top);
        root.style.setProperty('--toast-reserve', `${reservePx + STRIP_GAP_PX}px`);
      };
      fit();
      const scrolledPx = window.scrollY;
      root.setAttribute('data-toasts', '');
      if (pageRef?.current) {
        // Move the window's offset to the page's box before a frame: Chromium keeps it under
        // `overflow: hidden`, drawing the page above the window's top and blank below.
        window.scrollTo({ top: 0, left: 0, behavior: 'instant' });
        pageRef.current.scrollTop = scrolledPx;
      }
      const observer = new ResizeObserver(fit);
      observer.observe(region);
      window.addEventListener('resize', fit);
      return () => {
        observer.disconnect();
        window.removeEventListener('resize', fit);
        const pageScrolledPx = pageRef?.current?.scrollTop ?? 0;
        root.removeAttribute('data-toasts');
        root.style.removeProperty('--toast-reserve');
        if (pageRef?.current) window.scrollTo(0, pageScrolledPx);
      };
    },
    [pageRef],
  );
}

/**
 * An action or a failure interrupts (`role="alert"`), other outcomes are polite. The toast stays an
 * `alertdialog`: React Aria sets that role after our props (react-aria-components 1.22.1).
 */
const announcedAs = (content: QueuedContent) =>
  content.action || content.tone === 'warning' || content.tone === 'danger' ? 'alert' : 'status';

export interface ToastRegionProps {
  /** The page element that scrolls above the strip while toasts show (`styles.css`, `[data-toasts]`). */
  pageRef?: RefObject<HTMLElement | null> | undefined;
}

/**
 * Where toasts show, once, in the signed-in layout: a strip the page makes room for, a landmark
 * named by the count. Unmounted on sign-out, so no outcome shows to the next session.
 */
export function ToastRegion({ pageRef }: ToastRegionProps = {}) {
  useEffect(() => () => queue.clear(), []);
  const stripRef = useToastStrip(pageRef);
  return (
    // No aria-label: a fixed name keeps the region out of F6 navigation (react-aria 3.53.1).
    <AriaToastRegion queue={queue} className="toast-region" ref={stripRef}>
      {({ toast }) => (
        <AriaToast toast={toast} className={`toast toast-${toast.content.tone}`}>
          <AriaToastContent className="toast-content" role={announcedAs(toast.content)}>
            <Text slot="title" className="toast-title">
              <span className="visually-hidden">{TONE_WORDS[toast.content.tone]}: </span>
              {toast.content.title}
            </Text>
            {toast.content.description ? (
              <Text slot="description" className="toast-description">
                {toast.content.description}
              </Text>
            ) : null}
            {toast.content.link ? (
              <Link
                to={toast.content.link.to}
                className="toast-link"
                onClick={() => queue.close(toast.key)}
              >
                {toast.content.link.label}
              </Link>
            ) : null}
          </AriaToastContent>
          {toast.content.action ? (
            <Button
              className="toast-action"
              onPress={() => {
                toast.content.action?.onAction();
                queue.close(toast.key);
              }}
            >
              {toast.content.action.label}
            </Button>
          ) : null}
          <Button slot="close" className="toast-close" aria-label="Dismiss">
            <span aria-hidden="true">×</span>
          </Button>
        </AriaToast>
      )}
    </AriaToastRegion>
  );
}
