CREATE TABLE "bff"."device_latest_samples" (
	"region" text NOT NULL,
	"client_id" text NOT NULL,
	"device_id" text NOT NULL,
	"sampled_at" timestamp with time zone,
	"battery_power_w" double precision,
	"soc_percent" double precision,
	"grid_power_w" double precision,
	"pv_power_w" double precision,
	"read_at" timestamp with time zone,
	"next_read_at" timestamp with time zone NOT NULL,
	CONSTRAINT "device_latest_samples_region_client_id_device_id_pk" PRIMARY KEY("region","client_id","device_id")
);
--> statement-breakpoint
CREATE INDEX "device_latest_samples_due_idx" ON "bff"."device_latest_samples" USING btree ("next_read_at");