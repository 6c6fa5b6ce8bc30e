CREATE TABLE "sandbox"."device_configurations" (
	"device_id" text NOT NULL,
	"from_ms" bigint NOT NULL,
	"configuration" jsonb NOT NULL,
	CONSTRAINT "device_configurations_device_id_from_ms_pk" PRIMARY KEY("device_id","from_ms")
);
