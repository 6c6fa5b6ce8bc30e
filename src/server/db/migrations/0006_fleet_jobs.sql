CREATE TABLE "bff"."fleet_job_batches" (
	"job_id" text NOT NULL,
	"batch_index" integer NOT NULL,
	"state" text NOT NULL,
	"devices" jsonb NOT NULL,
	"batch_command_id" text,
	"command" jsonb,
	"attempts" integer DEFAULT 0 NOT NULL,
	"sent_at" timestamp with time zone,
	CONSTRAINT "fleet_job_batches_job_id_batch_index_pk" PRIMARY KEY("job_id","batch_index")
);
--> statement-breakpoint
CREATE TABLE "bff"."fleet_jobs" (
	"id" text PRIMARY KEY NOT NULL,
	"region" text NOT NULL,
	"client_id" text NOT NULL,
	"operator_name" text,
	"secret_ciphertext" text,
	"command" jsonb NOT NULL,
	"rollout" jsonb NOT NULL,
	"state" text NOT NULL,
	"stop_reason" text,
	"idempotency_key" text,
	"request_hash" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "bff"."fleet_job_batches" ADD CONSTRAINT "fleet_job_batches_job_id_fleet_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "bff"."fleet_jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "fleet_jobs_idempotency_idx" ON "bff"."fleet_jobs" USING btree ("region","client_id","idempotency_key") WHERE "bff"."fleet_jobs"."idempotency_key" is not null;--> statement-breakpoint
CREATE INDEX "fleet_jobs_client_created_idx" ON "bff"."fleet_jobs" USING btree ("region","client_id","created_at");