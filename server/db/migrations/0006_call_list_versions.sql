CREATE TABLE "call_list_versions" (
	"org_id" text PRIMARY KEY NOT NULL,
	"version" bigint NOT NULL
);
--> statement-breakpoint
-- Hand-written (not generated): the triggers that bump call_list_versions (see callListVersions in
-- server/db/schema.ts). Statement-level, with transition tables: once per statement and organisation,
-- however many rows the statement wrote (a trigger with transition tables names one event, hence one
-- trigger per event). Each organisation's row in organizations is locked (FOR NO KEY UPDATE) before its
-- version row, in id order: reserveCall (server/wallet/wallet.ts) locks the organisation FOR UPDATE and
-- then inserts a call, so a transaction that took the version row first and the organisation's row
-- second (a webhook ending a call, then the ledger's foreign-key check) could otherwise deadlock with it.
-- A deleted organisation's row is not found (nothing to lock); its version row is still written.
CREATE FUNCTION "call_list_versions_bump"(orgs text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF orgs IS NULL THEN
    RETURN;
  END IF;
  PERFORM 1 FROM "organizations" WHERE "id" = ANY(orgs) ORDER BY "id" FOR NO KEY UPDATE;
  INSERT INTO "call_list_versions" ("org_id", "version")
    SELECT "org_id", 1 FROM unnest(orgs) AS "changed"("org_id") ORDER BY "org_id"
    ON CONFLICT ("org_id") DO UPDATE SET "version" = "call_list_versions"."version" + 1;
END $$;--> statement-breakpoint
CREATE FUNCTION "calls_bump_call_list_versions"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  orgs text[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(DISTINCT "org_id" ORDER BY "org_id") INTO orgs FROM new_rows;
  ELSIF TG_OP = 'UPDATE' THEN
    SELECT array_agg(DISTINCT "org_id" ORDER BY "org_id") INTO orgs
      FROM (SELECT "org_id" FROM new_rows UNION ALL SELECT "org_id" FROM old_rows) AS "changed";
  ELSE
    SELECT array_agg(DISTINCT "org_id" ORDER BY "org_id") INTO orgs FROM old_rows;
  END IF;
  PERFORM "call_list_versions_bump"(orgs);
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "calls_insert_call_list_versions" AFTER INSERT ON "calls"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "calls_bump_call_list_versions"();--> statement-breakpoint
CREATE TRIGGER "calls_update_call_list_versions" AFTER UPDATE ON "calls"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "calls_bump_call_list_versions"();--> statement-breakpoint
CREATE TRIGGER "calls_delete_call_list_versions" AFTER DELETE ON "calls"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "calls_bump_call_list_versions"();--> statement-breakpoint
-- An agent's new name changes the call list (agent_name, and the search by agent name); other edits of
-- an agent do not. A deleted agent's calls lose their agent_id (ON DELETE SET NULL): the calls trigger.
CREATE FUNCTION "agents_bump_call_list_versions"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  orgs text[];
BEGIN
  SELECT array_agg(DISTINCT n."org_id" ORDER BY n."org_id") INTO orgs
    FROM new_rows AS n JOIN old_rows AS o ON o."id" = n."id"
    WHERE n."name" IS DISTINCT FROM o."name";
  PERFORM "call_list_versions_bump"(orgs);
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "agents_update_call_list_versions" AFTER UPDATE ON "agents"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "agents_bump_call_list_versions"();
