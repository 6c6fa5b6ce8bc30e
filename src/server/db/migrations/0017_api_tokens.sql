CREATE TABLE "bff"."api_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"region" text NOT NULL,
	"client_id" text NOT NULL,
	"name" text NOT NULL,
	"role" text NOT NULL,
	"site_ids" jsonb NOT NULL,
	"secret_hash" text NOT NULL,
	"vendor_secret_ciphertext" text,
	"made_by" jsonb NOT NULL,
	"made_by_name" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"last_used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"revoked_by_name" text
);
--> statement-breakpoint
CREATE INDEX "api_tokens_account_idx" ON "bff"."api_tokens" USING btree ("region","client_id");