CREATE TABLE "bff"."device_call_busy" (
	"region" text NOT NULL,
	"device_id" text NOT NULL,
	"busy_until" timestamp with time zone NOT NULL,
	CONSTRAINT "device_call_busy_region_device_id_pk" PRIMARY KEY("region","device_id")
);
--> statement-breakpoint
CREATE TABLE "bff"."device_call_slots" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"region" text NOT NULL,
	"device_id" text NOT NULL,
	"spent_at" timestamp with time zone NOT NULL,
	"kind" text NOT NULL,
	"change_id" text
);
--> statement-breakpoint
CREATE TABLE "bff"."queued_change_devices" (
	"change_id" text NOT NULL,
	"region" text NOT NULL,
	"device_id" text NOT NULL,
	CONSTRAINT "queued_change_devices_change_id_device_id_pk" PRIMARY KEY("change_id","device_id")
);
--> statement-breakpoint
CREATE TABLE "bff"."queued_changes" (
	"id" text PRIMARY KEY NOT NULL,
	"seq" bigserial NOT NULL,
	"region" text NOT NULL,
	"client_id" text NOT NULL,
	"operator_name" text,
	"operator" jsonb,
	"secret_ciphertext" text,
	"kind" text NOT NULL,
	"change" jsonb NOT NULL,
	"steps" jsonb NOT NULL,
	"state" text NOT NULL,
	"next_at" timestamp with time zone,
	"deadline_at" timestamp with time zone,
	"lead_ms" integer,
	"outcome" jsonb,
	"idempotency_key" text,
	"request_hash" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "queued_changes_seq_unique" UNIQUE("seq")
);
--> statement-breakpoint
ALTER TABLE "bff"."queued_change_devices" ADD CONSTRAINT "queued_change_devices_change_id_queued_changes_id_fk" FOREIGN KEY ("change_id") REFERENCES "bff"."queued_changes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "device_call_slots_device_idx" ON "bff"."device_call_slots" USING btree ("region","device_id","spent_at");--> statement-breakpoint
CREATE INDEX "queued_change_devices_device_idx" ON "bff"."queued_change_devices" USING btree ("region","device_id");--> statement-breakpoint
CREATE UNIQUE INDEX "queued_changes_idempotency_idx" ON "bff"."queued_changes" USING btree ("region","client_id","idempotency_key") WHERE "bff"."queued_changes"."idempotency_key" is not null;--> statement-breakpoint
CREATE INDEX "queued_changes_client_created_idx" ON "bff"."queued_changes" USING btree ("region","client_id","created_at");--> statement-breakpoint
CREATE INDEX "queued_changes_due_idx" ON "bff"."queued_changes" USING btree ("next_at") WHERE "bff"."queued_changes"."state" in ('queued', 'sending');