-- AlterTable
ALTER TABLE "DeliverySlot" ADD COLUMN     "attempt" INTEGER,
ADD COLUMN     "retryDelayMs" INTEGER;

-- Hand-written (functions are outside the schema engine's diff), replacing those of
-- delivery_bounds. Two changes:
-- 1. A waiting delivery is told when to look again should no release hand it a slot (its holder
--    died): the head of the queue soon, those further back in proportion to their place. Before,
--    every waiting delivery looked again every 45 s: thousands of them then polled in step.
-- 2. A release may take the oldest waiting delivery's attempt itself (p_steal: the attempt that
--    freed the slot just got a 2xx, and the subscription has no rate): that row becomes `running`
--    and the caller sends the attempt on its behalf (with the number and delay the waiting
--    delivery stored), then tells its workflow, which finds the attempt recorded. The slot goes
--    straight from one attempt to the next instead of waiting for a workflow to wake up, which
--    under a burst is what bounded a subscription to a few deliveries per second. A `running`
--    row counts as a held slot; its own delivery does not send while it runs.
DROP FUNCTION "acquire_delivery_slot"(text, text, bigint, text, timestamp(3), integer, integer, integer, boolean);
DROP FUNCTION "release_delivery_slot"(text, text, timestamp(3), integer, integer, text, timestamp(3));

-- outcome: acquired (send now), retry_after (wait until `until`), rate (wait until `until`, the
-- start time reserved for it: call again with p_rate_reserved), in_flight_bound (wait for a
-- slot: a release hands it over, oldest event first; look again at `until` should none come).
CREATE FUNCTION "acquire_delivery_slot"(
  p_delivery text, p_subscription text, p_seq bigint, p_workflow text, p_now timestamp(3),
  p_lease_ms integer, p_wait_lease_ms integer, p_limit integer, p_rate_reserved boolean,
  p_look_again_ms integer, p_attempt integer, p_retry_delay_ms integer
) RETURNS TABLE("outcome" text, "until" timestamp(3)) LANGUAGE plpgsql AS $$
DECLARE
  s record;
  bound integer;
  mine boolean;
  held integer;
  older integer;
  tat timestamp(3);
  running_until timestamp(3);
BEGIN
  SELECT "maxInFlight", "inFlightBound", "ratePerSecond", "rateNextAt", "retryAfterUntil" INTO s
    FROM "WebhookSubscription" WHERE "id" = p_subscription FOR UPDATE;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'acquired'::text, NULL::timestamp(3);
    RETURN;
  END IF;
  -- Its attempt is being sent on its behalf: it learns the outcome by signal, or looks again then.
  SELECT "leaseUntil" INTO running_until FROM "DeliverySlot"
   WHERE "deliveryId" = p_delivery AND "state" = 'running' AND "leaseUntil" > p_now;
  IF FOUND THEN
    RETURN QUERY SELECT 'in_flight_bound'::text, running_until;
    RETURN;
  END IF;
  IF s."retryAfterUntil" IS NOT NULL AND s."retryAfterUntil" > p_now THEN
    DELETE FROM "DeliverySlot" WHERE "deliveryId" = p_delivery AND "state" NOT IN ('held', 'running');
    RETURN QUERY SELECT 'retry_after'::text, s."retryAfterUntil";
    RETURN;
  END IF;
  bound := LEAST(p_limit, s."maxInFlight", COALESCE(s."inFlightBound", s."maxInFlight"));
  -- A slot handed over by a release (or still held by a retry of this attempt) is its own.
  SELECT EXISTS (SELECT 1 FROM "DeliverySlot" WHERE "deliveryId" = p_delivery AND "state" = 'held' AND "leaseUntil" > p_now) INTO mine;
  IF NOT mine THEN
    SELECT count(*) INTO held FROM "DeliverySlot"
     WHERE "subscriptionId" = p_subscription AND "state" IN ('held', 'running') AND "leaseUntil" > p_now;
    SELECT count(*) INTO older FROM "DeliverySlot"
     WHERE "subscriptionId" = p_subscription AND "state" IN ('waiting', 'rate') AND "leaseUntil" > p_now AND "seq" < p_seq;
    IF held >= bound OR older > 0 THEN
      INSERT INTO "DeliverySlot" ("deliveryId", "subscriptionId", "seq", "workflowId", "state", "leaseUntil", "since", "attempt", "retryDelayMs")
      VALUES (p_delivery, p_subscription, p_seq, p_workflow, 'waiting', p_now + make_interval(secs => p_wait_lease_ms / 1000.0), p_now, p_attempt, p_retry_delay_ms)
      ON CONFLICT ("deliveryId") DO UPDATE SET "state" = 'waiting', "leaseUntil" = EXCLUDED."leaseUntil", "attempt" = EXCLUDED."attempt", "retryDelayMs" = EXCLUDED."retryDelayMs";
      -- When to look again: a bound's worth of waiters ahead per step, at most half the place's
      -- lease, so that thousands of waiting deliveries do not poll in step.
      RETURN QUERY SELECT 'in_flight_bound'::text,
        p_now + make_interval(secs => LEAST(p_wait_lease_ms / 2, p_look_again_ms::bigint * (1 + older / GREATEST(bound, 1))) / 1000.0);
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
-- it returns so that the caller tells their workflows; with p_steal the oldest of them is
-- `running` (`stolen`): the caller sends its attempt itself.
CREATE FUNCTION "release_delivery_slot"(
  p_delivery text, p_subscription text, p_now timestamp(3), p_lease_ms integer, p_limit integer,
  p_signal text, p_retry_after_until timestamp(3), p_steal boolean
) RETURNS TABLE("deliveryId" text, "workflowId" text, "stolen" boolean, "attempt" integer, "retryDelayMs" integer, "since" timestamp(3))
LANGUAGE plpgsql AS $$
DECLARE
  s record;
  cap integer;
  cur integer;
  free integer;
BEGIN
  SELECT "maxInFlight", "inFlightBound", "boundSuccesses", "boundLoweredAt", "ratePerSecond" INTO s
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
   WHERE d."subscriptionId" = p_subscription AND d."state" IN ('held', 'running') AND d."leaseUntil" > p_now;
  IF free <= 0 THEN
    RETURN;
  END IF;
  RETURN QUERY
    WITH chosen AS (
      SELECT w."deliveryId" AS id, row_number() OVER (ORDER BY w."seq") AS n FROM "DeliverySlot" w
       WHERE w."subscriptionId" = p_subscription AND w."state" = 'waiting' AND w."leaseUntil" > p_now
       ORDER BY w."seq" LIMIT free)
    UPDATE "DeliverySlot" d
       SET "state" = CASE WHEN p_steal AND s."ratePerSecond" IS NULL AND c.n = 1 AND d."attempt" IS NOT NULL THEN 'running' ELSE 'held' END,
           "leaseUntil" = p_now + make_interval(secs => p_lease_ms / 1000.0)
      FROM chosen c
     WHERE d."deliveryId" = c.id
    RETURNING d."deliveryId", d."workflowId", d."state" = 'running', d."attempt", d."retryDelayMs", d."since";
END
$$;
