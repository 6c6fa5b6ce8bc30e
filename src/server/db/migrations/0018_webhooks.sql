ALTER TYPE "bff"."ledger_kind" ADD VALUE 'webhook';--> statement-breakpoint
CREATE TABLE "bff"."webhook_attempts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"delivery_id" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"status_code" integer,
	"latency_ms" integer NOT NULL,
	"error" text,
	"response_excerpt" text
);
--> statement-breakpoint
CREATE TABLE "bff"."webhook_deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"seq" bigserial NOT NULL,
	"endpoint_id" text NOT NULL,
	"event_id" text NOT NULL,
	"event_type" text NOT NULL,
	"payload" jsonb NOT NULL,
	"status" text NOT NULL,
	"attempts_made" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone,
	"lease_until" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"redelivered_at" timestamp with time zone,
	"redelivered_by" text
);
--> statement-breakpoint
CREATE TABLE "bff"."webhook_endpoints" (
	"id" text PRIMARY KEY NOT NULL,
	"region" text NOT NULL,
	"client_id" text NOT NULL,
	"url" text NOT NULL,
	"description" text NOT NULL,
	"event_types" jsonb NOT NULL,
	"site_ids" jsonb NOT NULL,
	"enabled" boolean NOT NULL,
	"disabled_reason" text,
	"disabled_at" timestamp with time zone,
	"secret_ciphertext" text NOT NULL,
	"previous_secret_ciphertext" text,
	"previous_secret_until" timestamp with time zone,
	"made_by" jsonb NOT NULL,
	"made_by_name" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "bff"."notifications" ADD COLUMN "for_role" text;--> statement-breakpoint
ALTER TABLE "bff"."webhook_attempts" ADD CONSTRAINT "webhook_attempts_delivery_id_webhook_deliveries_id_fk" FOREIGN KEY ("delivery_id") REFERENCES "bff"."webhook_deliveries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bff"."webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_id_webhook_endpoints_id_fk" FOREIGN KEY ("endpoint_id") REFERENCES "bff"."webhook_endpoints"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "webhook_attempts_delivery_idx" ON "bff"."webhook_attempts" USING btree ("delivery_id","id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due_idx" ON "bff"."webhook_deliveries" USING btree ("next_attempt_at");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_endpoint_idx" ON "bff"."webhook_deliveries" USING btree ("endpoint_id","seq");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_created_idx" ON "bff"."webhook_deliveries" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "webhook_endpoints_account_idx" ON "bff"."webhook_endpoints" USING btree ("region","client_id");