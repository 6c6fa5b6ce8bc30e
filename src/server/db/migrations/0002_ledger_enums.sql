CREATE TYPE "bff"."ledger_kind" AS ENUM('submit', 'cancel', 'batch', 'batchCancel', 'bind', 'unbind');--> statement-breakpoint
CREATE TYPE "bff"."ledger_state" AS ENUM('pending', 'succeeded', 'failed', 'unknown');--> statement-breakpoint
ALTER TABLE "bff"."ledger_entries" ALTER COLUMN "kind" SET DATA TYPE "bff"."ledger_kind" USING "kind"::"bff"."ledger_kind";--> statement-breakpoint
ALTER TABLE "bff"."ledger_entries" ALTER COLUMN "state" SET DATA TYPE "bff"."ledger_state" USING "state"::"bff"."ledger_state";