ALTER TYPE "bff"."ledger_kind" ADD VALUE 'siteTimeZone';--> statement-breakpoint
CREATE TABLE "bff"."site_time_zones" (
	"region" text NOT NULL,
	"client_id" text NOT NULL,
	"site_id" text NOT NULL,
	"time_zone" text NOT NULL,
	"set_by_name" text,
	"set_by_subject" text,
	"set_at" timestamp with time zone NOT NULL,
	CONSTRAINT "site_time_zones_region_client_id_site_id_pk" PRIMARY KEY("region","client_id","site_id")
);
