import { z } from 'zod';

/** A site with more devices than this starts folded, so a long list does not bury the others. */
export const FOLD_DEVICE_COUNT = 12;

const STORAGE_KEY = 'powerdeck.sites.folded';

/** Site ID to folded: the operator's own choices; sites not in it follow {@link isFoldedByDefault}. */
const FoldChoicesSchema = z.record(z.string(), z.boolean());
export type FoldChoices = z.infer<typeof FoldChoicesSchema>;

/** Whether a site of `deviceCount` devices starts folded. */
export const isFoldedByDefault = (deviceCount: number) => deviceCount > FOLD_DEVICE_COUNT;

/** This tab's fold choices (sessionStorage: kept across reloads, gone with the tab); unreadable is none. */
export function readFoldChoices(storage: Storage = sessionStorage): FoldChoices {
  try {
    const parsed = FoldChoicesSchema.safeParse(JSON.parse(storage.getItem(STORAGE_KEY) ?? '{}'));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

/** Stores the fold choices for the rest of the session; a full or refused storage is ignored. */
export function writeFoldChoices(choices: FoldChoices, storage: Storage = sessionStorage): void {
  try {
    storage.setItem(STORAGE_KEY, JSON.stringify(choices));
  } catch {
    // Private mode or a full storage: folding still works, it is just not remembered.
  }
}
