import { z } from 'zod';

/**
 * Strict pattern for every identifier that travels in a URL path (device, command, batch, site).
 * Letters, digits, `_` and `-`, 1 to 128 characters, starting with a letter or digit: no dots, so
 * no dot segments; no slashes or percent signs, so no encoded traversal. Our choice: the vendor
 * only says the IDs are strings (docs/upstream.md, Decisions: path IDs).
 */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

const idSchema = (what: string) =>
  z.string().regex(ID_PATTERN, {
    error: `${what} must be 1-128 letters, digits, '_' or '-', starting with a letter or digit`,
  });

export const DeviceIdSchema = idSchema('deviceId');
export const CommandIdSchema = idSchema('commandId');
export const BatchCommandIdSchema = idSchema('batchCommandId');
export const SiteIdSchema = idSchema('siteId');

export type DeviceId = z.infer<typeof DeviceIdSchema>;
export type CommandId = z.infer<typeof CommandIdSchema>;
export type SiteId = z.infer<typeof SiteIdSchema>;
