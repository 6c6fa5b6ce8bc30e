CREATE TABLE "bff"."batch_confirmations" (
	"ledger_entry_id" bigint NOT NULL,
	"device_id" text NOT NULL,
	"region" text NOT NULL,
	"client_id" text NOT NULL,
	"batch_command_id" text,
	"power_control" jsonb NOT NULL,
	"window_start" timestamp with time zone NOT NULL,
	"window_end" timestamp with time zone NOT NULL,
	"sent_at" timestamp with time zone NOT NULL,
	"made_by" jsonb,
	"made_by_name" text,
	CONSTRAINT "batch_confirmations_ledger_entry_id_device_id_pk" PRIMARY KEY("ledger_entry_id","device_id")
);
--> statement-breakpoint
CREATE TABLE "bff"."device_command_changes" (
	"region" text NOT NULL,
	"client_id" text NOT NULL,
	"device_id" text NOT NULL,
	"version" integer NOT NULL,
	"kind" text NOT NULL,
	"command_id" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"window_start" timestamp with time zone NOT NULL,
	"window_end" timestamp with time zone NOT NULL,
	"cancel_reason" text,
	"batch_command_id" text,
	"made_by_name" text,
	"made_by_key" text,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "device_command_changes_region_client_id_device_id_version_pk" PRIMARY KEY("region","client_id","device_id","version")
);
--> statement-breakpoint
CREATE TABLE "bff"."device_commands" (
	"region" text NOT NULL,
	"client_id" text NOT NULL,
	"device_id" text NOT NULL,
	"command_id" text NOT NULL,
	"status" text NOT NULL,
	"window_start" timestamp with time zone NOT NULL,
	"window_end" timestamp with time zone NOT NULL,
	"batch_command_id" text,
	"record" jsonb NOT NULL,
	"made_by" jsonb,
	"made_by_name" text,
	"learnt_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "device_commands_region_client_id_device_id_command_id_pk" PRIMARY KEY("region","client_id","device_id","command_id")
);
--> statement-breakpoint
CREATE TABLE "bff"."device_read_state" (
	"region" text NOT NULL,
	"client_id" text NOT NULL,
	"device_id" text NOT NULL,
	"site_id" text,
	"bound" boolean DEFAULT true NOT NULL,
	"version" integer DEFAULT 0 NOT NULL,
	"read_at" timestamp with time zone,
	"next_read_at" timestamp with time zone,
	"next_read_reason" text,
	"lease_until" timestamp with time zone,
	"has_open_commands" boolean DEFAULT false NOT NULL,
	"slots_read" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"slots_requested" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"failures" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "device_read_state_region_client_id_device_id_pk" PRIMARY KEY("region","client_id","device_id")
);
--> statement-breakpoint
CREATE TABLE "bff"."read_model_accounts" (
	"region" text NOT NULL,
	"client_id" text NOT NULL,
	"secret_ciphertext" text,
	"seen_at" timestamp with time zone NOT NULL,
	CONSTRAINT "read_model_accounts_region_client_id_pk" PRIMARY KEY("region","client_id")
);
--> statement-breakpoint
CREATE TABLE "bff"."read_model_notices" (
	"key" text PRIMARY KEY NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "bff"."unsupported_controls" (
	"region" text NOT NULL,
	"client_id" text NOT NULL,
	"device_id" text NOT NULL,
	"control" text NOT NULL,
	"command_id" text NOT NULL,
	"learnt_at" timestamp with time zone NOT NULL,
	CONSTRAINT "unsupported_controls_region_client_id_device_id_control_pk" PRIMARY KEY("region","client_id","device_id","control")
);
--> statement-breakpoint
ALTER TABLE "bff"."batch_confirmations" ADD CONSTRAINT "batch_confirmations_ledger_entry_id_ledger_entries_id_fk" FOREIGN KEY ("ledger_entry_id") REFERENCES "bff"."ledger_entries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "batch_confirmations_device_idx" ON "bff"."batch_confirmations" USING btree ("region","client_id","device_id");--> statement-breakpoint
CREATE INDEX "device_command_changes_created_idx" ON "bff"."device_command_changes" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "device_commands_window_idx" ON "bff"."device_commands" USING btree ("region","client_id","device_id","window_start");--> statement-breakpoint
CREATE INDEX "device_commands_batch_idx" ON "bff"."device_commands" USING btree ("region","client_id","batch_command_id") WHERE "bff"."device_commands"."batch_command_id" is not null;--> statement-breakpoint
CREATE INDEX "device_read_state_due_idx" ON "bff"."device_read_state" USING btree ("next_read_at") WHERE "bff"."device_read_state"."bound" and "bff"."device_read_state"."next_read_at" is not null;--> statement-breakpoint
CREATE INDEX "device_read_state_site_idx" ON "bff"."device_read_state" USING btree ("region","client_id","site_id");