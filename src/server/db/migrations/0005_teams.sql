CREATE TABLE "bff"."vendor_connections" (
	"region" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"secret_ciphertext" text NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"updated_by_name" text,
	"updated_by_subject" text
);
--> statement-breakpoint
ALTER TABLE "bff"."sessions" ALTER COLUMN "client_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "bff"."sessions" ALTER COLUMN "secret_ciphertext" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "bff"."ledger_entries" ADD COLUMN "operator_issuer" text;--> statement-breakpoint
ALTER TABLE "bff"."ledger_entries" ADD COLUMN "operator_subject" text;--> statement-breakpoint
ALTER TABLE "bff"."ledger_entries" ADD COLUMN "operator_email" text;--> statement-breakpoint
ALTER TABLE "bff"."sessions" ADD COLUMN "operator_issuer" text;--> statement-breakpoint
ALTER TABLE "bff"."sessions" ADD COLUMN "operator_subject" text;--> statement-breakpoint
ALTER TABLE "bff"."sessions" ADD COLUMN "operator_email" text;--> statement-breakpoint
ALTER TABLE "bff"."sessions" ADD COLUMN "operator_role" text;--> statement-breakpoint
ALTER TABLE "bff"."sessions" ADD COLUMN "id_token_ciphertext" text;