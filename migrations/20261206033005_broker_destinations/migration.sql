-- AlterTable
ALTER TABLE "WebhookSubscription" ADD COLUMN     "destination" JSONB,
ADD COLUMN     "destinationCredentials" TEXT,
ADD COLUMN     "destinationType" TEXT NOT NULL DEFAULT 'https';

-- A broker destination's credentials are sealed like the signing secrets: the retirement rule of
-- migration secret_key_retirement covers them too.
CREATE OR REPLACE FUNCTION "webhook_secret_not_under_retired_key"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  sealed_with text[] := ARRAY[]::text[];
  retired text;
BEGIN
  IF TG_OP = 'INSERT' OR NEW."secret" IS DISTINCT FROM OLD."secret" THEN
    sealed_with := sealed_with || split_part(NEW."secret", '.', 2);
  END IF;
  IF NEW."previousSecret" IS NOT NULL AND (TG_OP = 'INSERT' OR NEW."previousSecret" IS DISTINCT FROM OLD."previousSecret") THEN
    sealed_with := sealed_with || split_part(NEW."previousSecret", '.', 2);
  END IF;
  IF NEW."destinationCredentials" IS NOT NULL AND (TG_OP = 'INSERT' OR NEW."destinationCredentials" IS DISTINCT FROM OLD."destinationCredentials") THEN
    sealed_with := sealed_with || split_part(NEW."destinationCredentials", '.', 2);
  END IF;
  IF cardinality(sealed_with) = 0 THEN
    RETURN NEW;
  END IF;
  PERFORM pg_advisory_xact_lock_shared(4702158301);
  SELECT k."keyId" INTO retired FROM "RetiredSecretKey" k WHERE k."keyId" = ANY(sealed_with) LIMIT 1;
  IF retired IS NOT NULL THEN
    RAISE EXCEPTION 'a webhook secret sealed under the retired key %', retired USING ERRCODE = 'WK001';
  END IF;
  RETURN NEW;
END
$$;

DROP TRIGGER "WebhookSubscription_secret_not_under_retired_key" ON "WebhookSubscription";
CREATE TRIGGER "WebhookSubscription_secret_not_under_retired_key"
  BEFORE INSERT OR UPDATE OF "secret", "previousSecret", "destinationCredentials" ON "WebhookSubscription"
  FOR EACH ROW
  EXECUTE FUNCTION "webhook_secret_not_under_retired_key"();
