import { useMutation } from '@tanstack/react-query';
import type { BatchCancelResult } from '#domain/batch.ts';
import { isQueuedAnswer } from '#domain/queued-change.ts';
import { useCancelCommand } from './cancel-command.ts';
import { queuedWords } from '../lib/queued.ts';
import { ApiError } from '../../lib/api-error.ts';
import { problemWords } from '../../lib/problem-words.ts';

export const QUEUED_CODE = 'queued';

export interface DeviceCommandRef {
  deviceId: string;
  commandId: string;
}

/**
 * Cancels a batch's device commands one by one, for a batch whose ID was lost (docs/decisions/006,
 * section 5): one intent each, a refusal never stops the others; one result per command, as a batch cancel answers.
 */
export function useCancelDeviceByDevice() {
  const cancel = useCancelCommand();
  return useMutation({
    mutationFn: async (commands: readonly DeviceCommandRef[]): Promise<BatchCancelResult[]> => {
      const results: BatchCancelResult[] = [];
      for (const { deviceId, commandId } of commands) {
        try {
          const answer = await cancel.mutateAsync({ deviceId, commandId });
          // A cancel queued for the device's budget has cancelled nothing yet: not a success.
          if (isQueuedAnswer(answer))
            results.push({
              deviceId,
              commandId,
              success: false,
              error: { code: QUEUED_CODE, message: `Not sent yet. ${queuedWords(answer, 'UTC')}` },
            });
          else results.push({ deviceId, commandId, success: true, status: 'cancelled' });
        } catch (error) {
          const refusal =
            error instanceof ApiError
              ? { code: error.code, message: problemWords(error) }
              : { code: 'internal_error', message: 'The cancel failed in this browser.' };
          results.push({ deviceId, commandId, success: false, error: refusal });
        }
      }
      return results;
    },
  });
}
