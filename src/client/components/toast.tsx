import { useEffect } from 'react';
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
  /** One more sentence: what happens next, or why. */
  description?: string | undefined;
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
  description: z.string().optional(),
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

/**
 * Where toasts show: rendered once, in the signed-in layout, bottom right above everything else,
 * as a landmark region named by the number of toasts. Each toast has its title, description, link,
 * action and a Dismiss button. When it leaves (sign-out, an expired session), the toasts go with
 * it, so no outcome of one session shows to whoever signs in next.
 */
export function ToastRegion() {
  useEffect(() => () => queue.clear(), []);
  return (
    // No aria-label: React Aria names the region by its count ("2 notifications."), and a fixed
    // name would keep the region out of F6 landmark navigation, which registers it when the name
    // changes (react-aria 3.53.1).
    <AriaToastRegion queue={queue} className="toast-region">
      {({ toast }) => (
        <AriaToast toast={toast} className={`toast toast-${toast.content.tone}`}>
          <AriaToastContent className="toast-content">
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
