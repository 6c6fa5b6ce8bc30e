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

/*
 * The one module that touches React Aria's toasts, which are still exported as `UNSTABLE_`
 * (react-aria-components is pinned exactly for them): a rename upstream is one edit here
 * (docs/decisions/003-component-kit.md, Consequences).
 */

/** How an outcome went; the tone colours the toast's edge and is said in its words too. */
export type ToastTone = 'success' | 'info' | 'warning' | 'danger';

/** A button in the toast, e.g. Undo. */
export interface ToastAction {
  label: string;
  /** Runs once; the toast closes right after. */
  onAction: () => void;
}

/** A link in the toast, e.g. to the batch just sent. */
export interface ToastLink {
  label: string;
  /** An app path, e.g. `/batches/b_1`. */
  to: string;
}

/** What {@link showToast} shows. */
export interface ToastOptions {
  /** The outcome in a few words, e.g. "Command cmd_1 submitted". */
  title: string;
  /**
   * One more sentence: what happens next, or why. An element when the sentence follows something
   * that changes while the toast shows (a queued change's line, rendered in the app's providers).
   */
  description?: string | ReactElement | undefined;
  tone: ToastTone;
  action?: ToastAction | undefined;
  link?: ToastLink | undefined;
  /**
   * How long it stays without being hovered or focused, in ms (at least 5000, so it can be read
   * and reached; React Aria pauses the timer while the toasts are hovered or focused). Default
   * 8000; `null` keeps it until closed.
   */
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
 * Shows a toast in the signed-in pages' {@link ToastRegion}: an outcome, optionally a link and
 * one action (Undo). The toasts are a landmark: F6 moves focus to them and back, Tab reaches the
 * buttons; when a focused toast closes, focus returns to where it was before.
 *
 * @returns the toast's key, for {@link closeToast} (e.g. when Undo is no longer possible).
 * @throws ZodError when the options are out of shape: an empty title, a link that is not an app
 *   path, a timeout under 5000 ms.
 *
 * @example
 * showToast({
 *   title: `Command ${id} submitted`,
 *   description: 'Starts 2026-11-21 11:30 (Europe/Berlin).',
 *   tone: 'success',
 *   action: { label: 'Undo', onAction: () => cancel.mutate({ deviceId, commandId: id }) },
 *   timeoutMs: 10_000,
 * });
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
 * Makes the window's bottom strip, where the toasts are, room the page does not use (the product's
 * rule: a toast never covers a control). While toasts show,
 * `--toast-reserve` on the root element is the strip's height in px (the toasts' height and a gap
 * above and below), kept current as toasts come, go and wrap, and `data-toasts` is set on it: the
 * shell's CSS then scrolls the page (header and main) in a box that ends above the strip, and
 * drawers and dialogs end above it too, so nothing is drawn under a toast at any scroll position.
 * The page's scroll position moves between the window and that box, so nothing jumps.
 *
 * @returns a callback ref for the toast region; React calls its cleanup when the last toast goes.
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
        // The window's offset goes to the page's box, in this task, before a frame is drawn.
        // Chromium keeps the window's offset under `overflow: hidden` though the page's box is
        // now no taller than the window: left there, it would draw the box above the window's top
        // and the page blank below its top line while the toasts show.
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
 * A toast that offers an action (Undo, for a few seconds) or says something went wrong
 * interrupts (`role="alert"`); any other outcome is said politely (`role="status"`), after what
 * the screen reader is reading. The toast itself stays an `alertdialog` (React Aria sets that role
 * after the props given, so it cannot be changed here; react-aria-components 1.22.1).
 */
const announcedAs = (content: QueuedContent) =>
  content.action || content.tone === 'warning' || content.tone === 'danger' ? 'alert' : 'status';

export interface ToastRegionProps {
  /**
   * The element holding the page (header and main) that scrolls while toasts show, above their
   * strip (see `styles.css`, `[data-toasts]`); without it the strip is still reserved.
   */
  pageRef?: RefObject<HTMLElement | null> | undefined;
}

/**
 * Where toasts show: rendered once, in the signed-in layout, in a strip along the window's bottom
 * edge that the page makes room for while toasts show (so none covers a control, at any window
 * size or scroll position), newest on the right, as a landmark region named by the number of
 * toasts. Each toast has its title, description, link, action and a Dismiss button. When it
 * leaves (sign-out, an expired session), the toasts go with it, so no outcome of one session
 * shows to whoever signs in next.
 */
export function ToastRegion({ pageRef }: ToastRegionProps = {}) {
  useEffect(() => () => queue.clear(), []);
  const stripRef = useToastStrip(pageRef);
  return (
    // No aria-label: React Aria names the region by its count ("2 notifications."), and a fixed
    // name would keep the region out of F6 landmark navigation, which registers it when the name
    // changes (react-aria 3.53.1).
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
