CREATE SCHEMA IF NOT EXISTS "sandbox";
--> statement-breakpoint
CREATE TABLE "sandbox"."batches" (
	"id" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"region" text NOT NULL,
	"created_at_ms" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sandbox"."bindings" (
	"client_id" text NOT NULL,
	"site_id" text NOT NULL,
	"seq" integer NOT NULL,
	CONSTRAINT "bindings_client_id_site_id_pk" PRIMARY KEY("client_id","site_id")
);
--> statement-breakpoint
CREATE TABLE "sandbox"."commands" (
	"id" text PRIMARY KEY NOT NULL,
	"device_id" text NOT NULL,
	"batch_command_id" text,
	"power_control" jsonb NOT NULL,
	"start_ms" bigint NOT NULL,
	"end_ms" bigint NOT NULL,
	"status" text NOT NULL,
	"received_at_ms" bigint NOT NULL,
	"started_at_ms" bigint,
	"completed_at_ms" bigint,
	"cancelled_at_ms" bigint,
	"cancel_reason" text
);
--> statement-breakpoint
CREATE TABLE "sandbox"."device_conditions" (
	"device_id" text PRIMARY KEY NOT NULL,
	"online" boolean NOT NULL,
	"fault" boolean NOT NULL,
	"since_ms" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sandbox"."meta" (
	"key" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sandbox"."tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"region" text NOT NULL,
	"expires_at_ms" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "commands_device_idx" ON "sandbox"."commands" USING btree ("device_id","start_ms");--> statement-breakpoint
CREATE INDEX "commands_batch_idx" ON "sandbox"."commands" USING btree ("batch_command_id");--> statement-breakpoint
CREATE INDEX "tokens_expiry_idx" ON "sandbox"."tokens" USING btree ("expires_at_ms");