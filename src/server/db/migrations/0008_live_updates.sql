CREATE TABLE "bff"."account_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"region" text NOT NULL,
	"client_id" text NOT NULL,
	"recipient" text,
	"type" text NOT NULL,
	"data" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "bff"."notification_reads" (
	"notification_id" bigint NOT NULL,
	"person" text NOT NULL,
	"read_at" timestamp with time zone NOT NULL,
	CONSTRAINT "notification_reads_notification_id_person_pk" PRIMARY KEY("notification_id","person")
);
--> statement-breakpoint
CREATE TABLE "bff"."notifications" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"region" text NOT NULL,
	"client_id" text NOT NULL,
	"recipient" text,
	"excluded" text,
	"kind" text NOT NULL,
	"title" text NOT NULL,
	"body" text NOT NULL,
	"link" text,
	"time_zone" text,
	"window_start" timestamp with time zone,
	"window_end" timestamp with time zone,
	"facts" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "bff"."notification_reads" ADD CONSTRAINT "notification_reads_notification_id_notifications_id_fk" FOREIGN KEY ("notification_id") REFERENCES "bff"."notifications"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "account_events_account_idx" ON "bff"."account_events" USING btree ("region","client_id","id");--> statement-breakpoint
CREATE INDEX "account_events_created_idx" ON "bff"."account_events" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "notifications_account_idx" ON "bff"."notifications" USING btree ("region","client_id","id");--> statement-breakpoint
CREATE INDEX "notifications_created_idx" ON "bff"."notifications" USING btree ("created_at");