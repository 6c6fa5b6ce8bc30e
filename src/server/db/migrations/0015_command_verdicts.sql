CREATE TABLE "bff"."command_verdicts" (
	"region" text NOT NULL,
	"client_id" text NOT NULL,
	"device_id" text NOT NULL,
	"command_id" text NOT NULL,
	"command_status" text NOT NULL,
	"record" jsonb NOT NULL,
	"window_start" timestamp with time zone NOT NULL,
	"window_end" timestamp with time zone NOT NULL,
	"due_at" timestamp with time zone,
	"lease_until" timestamp with time zone,
	"verdict" jsonb,
	"computed_at" timestamp with time zone,
	"sampling_period_ms" integer,
	"samples" jsonb,
	"read_to" timestamp with time zone,
	"telemetry_calls" integer DEFAULT 0 NOT NULL,
	"failures" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "command_verdicts_region_client_id_device_id_command_id_pk" PRIMARY KEY("region","client_id","device_id","command_id")
);
--> statement-breakpoint
CREATE TABLE "bff"."device_telemetry_settings" (
	"region" text NOT NULL,
	"client_id" text NOT NULL,
	"device_id" text NOT NULL,
	"settings" jsonb NOT NULL,
	"read_at" timestamp with time zone NOT NULL,
	CONSTRAINT "device_telemetry_settings_region_client_id_device_id_pk" PRIMARY KEY("region","client_id","device_id")
);
--> statement-breakpoint
CREATE INDEX "command_verdicts_device_idx" ON "bff"."command_verdicts" USING btree ("region","client_id","device_id","window_end");--> statement-breakpoint
CREATE INDEX "command_verdicts_due_idx" ON "bff"."command_verdicts" USING btree ("due_at") WHERE "bff"."command_verdicts"."due_at" is not null;