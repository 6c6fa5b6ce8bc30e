ALTER TABLE "sandbox"."batches" ADD COLUMN "device_ids" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
CREATE INDEX "commands_status_idx" ON "sandbox"."commands" USING btree ("status");