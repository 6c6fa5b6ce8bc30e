CREATE TABLE "bff"."site_binding_generations" (
	"region" text NOT NULL,
	"client_id" text NOT NULL,
	"generation" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "site_binding_generations_region_client_id_pk" PRIMARY KEY("region","client_id")
);
