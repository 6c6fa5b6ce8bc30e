CREATE SCHEMA IF NOT EXISTS "bff";
--> statement-breakpoint
CREATE TABLE "bff"."ledger_entries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"state" text NOT NULL,
	"region" text NOT NULL,
	"client_id" text NOT NULL,
	"operator_name" text,
	"idempotency_key" text,
	"request_hash" text,
	"device_id" text,
	"site_id" text,
	"command_id" text,
	"batch_command_id" text,
	"device_ids" jsonb,
	"window_start" timestamp with time zone,
	"window_end" timestamp with time zone,
	"request" jsonb,
	"response_status" integer,
	"response" jsonb,
	"outcome" jsonb,
	"created_at" timestamp with time zone NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "bff"."sessions" (
	"id_hash" text PRIMARY KEY NOT NULL,
	"region" text NOT NULL,
	"client_id" text NOT NULL,
	"operator_name" text,
	"secret_ciphertext" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_idempotency_idx" ON "bff"."ledger_entries" USING btree ("region","client_id","idempotency_key") WHERE "bff"."ledger_entries"."idempotency_key" is not null;--> statement-breakpoint
CREATE INDEX "ledger_client_created_idx" ON "bff"."ledger_entries" USING btree ("region","client_id","created_at");--> statement-breakpoint
CREATE INDEX "ledger_device_idx" ON "bff"."ledger_entries" USING btree ("device_id");--> statement-breakpoint
CREATE INDEX "ledger_batch_idx" ON "bff"."ledger_entries" USING btree ("batch_command_id");--> statement-breakpoint
CREATE INDEX "ledger_state_idx" ON "bff"."ledger_entries" USING btree ("state");--> statement-breakpoint
CREATE INDEX "sessions_last_seen_idx" ON "bff"."sessions" USING btree ("last_seen_at");--> statement-breakpoint
CREATE INDEX "sessions_created_idx" ON "bff"."sessions" USING btree ("created_at");