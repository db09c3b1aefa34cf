-- CreateTable
CREATE TABLE "RetiredSecretKey" (
    "keyId" TEXT NOT NULL,
    "retiredAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "RetiredSecretKey_pkey" PRIMARY KEY ("keyId")
);

-- A value sealed under a retired key is refused (secret.repository.ts retireKeys). Before it reads the
-- retired keys, each seal takes the shared advisory lock 4702158301 until its transaction ends; a
-- retirement takes it exclusively: it waits for the seals under way, and the seals after it read it.
-- Only the values written anew are judged (clearing "previousSecret" is not a seal).
CREATE FUNCTION "webhook_secret_not_under_retired_key"() RETURNS trigger LANGUAGE plpgsql AS $$
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

CREATE TRIGGER "WebhookSubscription_secret_not_under_retired_key"
  BEFORE INSERT OR UPDATE OF "secret", "previousSecret" ON "WebhookSubscription"
  FOR EACH ROW
  EXECUTE FUNCTION "webhook_secret_not_under_retired_key"();
