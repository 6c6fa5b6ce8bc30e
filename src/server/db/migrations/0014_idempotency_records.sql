CREATE TABLE "bff"."idempotency_records" (
	"region" text NOT NULL,
	"client_id" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"holder" text NOT NULL,
	"ledger_entry_id" bigint,
	"queued_change_id" text,
	"fleet_job_id" text,
	"request_hash" text,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "idempotency_records_region_client_id_idempotency_key_holder_pk" PRIMARY KEY("region","client_id","idempotency_key","holder"),
	CONSTRAINT "idempotency_records_holder_check" CHECK (("holder" = 'ledger') = ("ledger_entry_id" is not null) and ("holder" = 'queue') = ("queued_change_id" is not null) and ("holder" = 'fleetJob') = ("fleet_job_id" is not null))
);
--> statement-breakpoint
ALTER TABLE "bff"."idempotency_records" ADD CONSTRAINT "idempotency_records_ledger_entry_id_ledger_entries_id_fk" FOREIGN KEY ("ledger_entry_id") REFERENCES "bff"."ledger_entries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bff"."idempotency_records" ADD CONSTRAINT "idempotency_records_queued_change_id_queued_changes_id_fk" FOREIGN KEY ("queued_change_id") REFERENCES "bff"."queued_changes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bff"."idempotency_records" ADD CONSTRAINT "idempotency_records_fleet_job_id_fleet_jobs_id_fk" FOREIGN KEY ("fleet_job_id") REFERENCES "bff"."fleet_jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "idempotency_records_ledger_idx" ON "bff"."idempotency_records" USING btree ("ledger_entry_id");--> statement-breakpoint
CREATE UNIQUE INDEX "idempotency_records_queue_idx" ON "bff"."idempotency_records" USING btree ("queued_change_id");--> statement-breakpoint
CREATE UNIQUE INDEX "idempotency_records_fleet_job_idx" ON "bff"."idempotency_records" USING btree ("fleet_job_id");--> statement-breakpoint
INSERT INTO "bff"."idempotency_records" ("region", "client_id", "idempotency_key", "holder", "ledger_entry_id", "request_hash", "created_at")
SELECT "region", "client_id", "idempotency_key", 'ledger', "id", "request_hash", "created_at" FROM "bff"."ledger_entries" WHERE "idempotency_key" IS NOT NULL;--> statement-breakpoint
INSERT INTO "bff"."idempotency_records" ("region", "client_id", "idempotency_key", "holder", "queued_change_id", "request_hash", "created_at")
SELECT "region", "client_id", "idempotency_key", 'queue', "id", "request_hash", "created_at" FROM "bff"."queued_changes" WHERE "idempotency_key" IS NOT NULL;--> statement-breakpoint
INSERT INTO "bff"."idempotency_records" ("region", "client_id", "idempotency_key", "holder", "fleet_job_id", "request_hash", "created_at")
SELECT "region", "client_id", "idempotency_key", 'fleetJob', "id", "request_hash", "created_at" FROM "bff"."fleet_jobs" WHERE "idempotency_key" IS NOT NULL;
