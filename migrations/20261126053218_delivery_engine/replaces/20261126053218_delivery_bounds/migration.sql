-- DropIndex
DROP INDEX "Delivery_workflowId_key";

-- AlterTable
ALTER TABLE "DeliveryAttempt" ADD COLUMN     "waitedMs" INTEGER,
ADD COLUMN     "waitedReason" TEXT;

-- AlterTable
ALTER TABLE "WebhookSubscription" ADD COLUMN     "boundLoweredAt" TIMESTAMP(3),
ADD COLUMN     "boundSuccesses" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "inFlightBound" INTEGER,
ADD COLUMN     "maxInFlight" INTEGER NOT NULL DEFAULT 10,
ADD COLUMN     "rateNextAt" TIMESTAMP(3),
ADD COLUMN     "ratePerSecond" DOUBLE PRECISION,
ADD COLUMN     "retryAfterUntil" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "DeliverySlot" (
    "deliveryId" TEXT NOT NULL,
    "subscriptionId" TEXT NOT NULL,
    "seq" BIGINT NOT NULL,
    "workflowId" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "leaseUntil" TIMESTAMP(3) NOT NULL,
    "since" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "DeliverySlot_pkey" PRIMARY KEY ("deliveryId")
);

-- CreateIndex
CREATE INDEX "DeliverySlot_subscriptionId_state_seq_idx" ON "DeliverySlot"("subscriptionId", "state", "seq");

-- AddForeignKey
ALTER TABLE "DeliverySlot" ADD CONSTRAINT "DeliverySlot_deliveryId_fkey" FOREIGN KEY ("deliveryId") REFERENCES "Delivery"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "DeliverySlot" ADD CONSTRAINT "DeliverySlot_subscriptionId_fkey" FOREIGN KEY ("subscriptionId") REFERENCES "WebhookSubscription"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Hand-written (the schema engine's diff ignores functions, so `migration:new --check` stays
-- clean): the in-flight bound, the rate and Retry-After of a subscription, decided under a lock on
-- its row so that counting the slots and taking one are one step. One call (one round trip) per
-- attempt each way. Every statement of a plpgsql function takes a fresh snapshot, so the counts
-- below see what other acquirers committed before they released the row lock.
-- Times come from the caller (the worker's clock) so that the leases, Retry-After and the rate are
-- judged on one clock.

-- outcome: acquired (send now), retry_after (wait until `until`), rate (wait until `until`, the
-- start time reserved for it: call again with p_rate_reserved), in_flight_bound (wait for a
-- slot: a release hands it over, oldest event first).
CREATE FUNCTION "acquire_delivery_slot"(
  p_delivery text, p_subscription text, p_seq bigint, p_workflow text, p_now timestamp(3),
  p_lease_ms integer, p_wait_lease_ms integer, p_limit integer, p_rate_reserved boolean
) RETURNS TABLE("outcome" text, "until" timestamp(3)) LANGUAGE plpgsql AS $$
DECLARE
  s record;
  bound integer;
  mine boolean;
  held integer;
  older integer;
  tat timestamp(3);
BEGIN
  SELECT "maxInFlight", "inFlightBound", "ratePerSecond", "rateNextAt", "retryAfterUntil" INTO s
    FROM "WebhookSubscription" WHERE "id" = p_subscription FOR UPDATE;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'acquired'::text, NULL::timestamp(3);
    RETURN;
  END IF;
  IF s."retryAfterUntil" IS NOT NULL AND s."retryAfterUntil" > p_now THEN
    DELETE FROM "DeliverySlot" WHERE "deliveryId" = p_delivery AND "state" <> 'held';
    RETURN QUERY SELECT 'retry_after'::text, s."retryAfterUntil";
    RETURN;
  END IF;
  bound := LEAST(p_limit, s."maxInFlight", COALESCE(s."inFlightBound", s."maxInFlight"));
  -- A slot handed over by a release (or still held by a retry of this attempt) is its own.
  SELECT EXISTS (SELECT 1 FROM "DeliverySlot" WHERE "deliveryId" = p_delivery AND "state" = 'held' AND "leaseUntil" > p_now) INTO mine;
  IF NOT mine THEN
    SELECT count(*) INTO held FROM "DeliverySlot"
     WHERE "subscriptionId" = p_subscription AND "state" = 'held' AND "leaseUntil" > p_now;
    SELECT count(*) INTO older FROM "DeliverySlot"
     WHERE "subscriptionId" = p_subscription AND "state" IN ('waiting', 'rate') AND "leaseUntil" > p_now AND "seq" < p_seq;
    IF held >= bound OR older > 0 THEN
      INSERT INTO "DeliverySlot" ("deliveryId", "subscriptionId", "seq", "workflowId", "state", "leaseUntil", "since")
      VALUES (p_delivery, p_subscription, p_seq, p_workflow, 'waiting', p_now + make_interval(secs => p_wait_lease_ms / 1000.0), p_now)
      ON CONFLICT ("deliveryId") DO UPDATE SET "state" = 'waiting', "leaseUntil" = EXCLUDED."leaseUntil";
      RETURN QUERY SELECT 'in_flight_bound'::text, NULL::timestamp(3);
      RETURN;
    END IF;
  END IF;
  -- The rate (GCRA): each start reserves the next free start time, 1/rate after the last.
  IF s."ratePerSecond" IS NOT NULL AND NOT p_rate_reserved THEN
    tat := GREATEST(COALESCE(s."rateNextAt", p_now), p_now);
    UPDATE "WebhookSubscription" SET "rateNextAt" = tat + make_interval(secs => 1.0 / s."ratePerSecond") WHERE "id" = p_subscription;
    IF tat > p_now THEN
      -- It keeps its place in event order (state `rate`: no slot is handed to it), holding no slot meanwhile.
      INSERT INTO "DeliverySlot" ("deliveryId", "subscriptionId", "seq", "workflowId", "state", "leaseUntil", "since")
      VALUES (p_delivery, p_subscription, p_seq, p_workflow, 'rate', tat + make_interval(secs => p_wait_lease_ms / 1000.0), p_now)
      ON CONFLICT ("deliveryId") DO UPDATE SET "state" = 'rate', "leaseUntil" = EXCLUDED."leaseUntil";
      RETURN QUERY SELECT 'rate'::text, tat;
      RETURN;
    END IF;
  END IF;
  INSERT INTO "DeliverySlot" ("deliveryId", "subscriptionId", "seq", "workflowId", "state", "leaseUntil", "since")
  VALUES (p_delivery, p_subscription, p_seq, p_workflow, 'held', p_now + make_interval(secs => p_lease_ms / 1000.0), p_now)
  ON CONFLICT ("deliveryId") DO UPDATE SET "state" = 'held', "leaseUntil" = EXCLUDED."leaseUntil";
  RETURN QUERY SELECT 'acquired'::text, NULL::timestamp(3);
END
$$;

-- Ends an attempt: frees its slot, adjusts the bound (p_signal: success raises a lowered bound
-- by one per bound's worth of 2xx answers; overload halves it, at most once a second; none leaves
-- it), records a Retry-After, and hands the free slots to the oldest waiting deliveries, which
-- it returns so that the caller signals their workflows.
CREATE FUNCTION "release_delivery_slot"(
  p_delivery text, p_subscription text, p_now timestamp(3), p_lease_ms integer, p_limit integer,
  p_signal text, p_retry_after_until timestamp(3)
) RETURNS TABLE("deliveryId" text, "workflowId" text) LANGUAGE plpgsql AS $$
DECLARE
  s record;
  cap integer;
  cur integer;
  free integer;
BEGIN
  SELECT "maxInFlight", "inFlightBound", "boundSuccesses", "boundLoweredAt" INTO s
    FROM "WebhookSubscription" WHERE "id" = p_subscription FOR UPDATE;
  DELETE FROM "DeliverySlot" d WHERE d."deliveryId" = p_delivery;
  cap := LEAST(p_limit, s."maxInFlight");
  cur := LEAST(cap, COALESCE(s."inFlightBound", cap));
  IF p_signal = 'overload' THEN
    IF s."boundLoweredAt" IS NULL OR s."boundLoweredAt" <= p_now - interval '1 second' THEN
      cur := GREATEST(1, cur / 2);
      UPDATE "WebhookSubscription" SET "inFlightBound" = cur, "boundSuccesses" = 0, "boundLoweredAt" = p_now WHERE "id" = p_subscription;
    END IF;
  ELSIF p_signal = 'success' AND s."inFlightBound" IS NOT NULL THEN
    IF s."boundSuccesses" + 1 >= cur THEN
      cur := cur + 1;
      UPDATE "WebhookSubscription" SET "inFlightBound" = CASE WHEN cur >= cap THEN NULL ELSE cur END, "boundSuccesses" = 0 WHERE "id" = p_subscription;
    ELSE
      UPDATE "WebhookSubscription" SET "boundSuccesses" = s."boundSuccesses" + 1 WHERE "id" = p_subscription;
    END IF;
  END IF;
  IF p_retry_after_until IS NOT NULL THEN
    UPDATE "WebhookSubscription" SET "retryAfterUntil" = GREATEST(COALESCE("retryAfterUntil", p_retry_after_until), p_retry_after_until) WHERE "id" = p_subscription;
    -- The waiting ones learn of it at their next look; no slot is handed over before then.
    RETURN;
  END IF;
  SELECT cur - count(*) INTO free FROM "DeliverySlot" d
   WHERE d."subscriptionId" = p_subscription AND d."state" = 'held' AND d."leaseUntil" > p_now;
  IF free <= 0 THEN
    RETURN;
  END IF;
  RETURN QUERY
    UPDATE "DeliverySlot" d SET "state" = 'held', "leaseUntil" = p_now + make_interval(secs => p_lease_ms / 1000.0)
     WHERE d."deliveryId" IN (
       SELECT w."deliveryId" FROM "DeliverySlot" w
        WHERE w."subscriptionId" = p_subscription AND w."state" = 'waiting' AND w."leaseUntil" > p_now
        ORDER BY w."seq" LIMIT free)
    RETURNING d."deliveryId", d."workflowId";
END
$$;
