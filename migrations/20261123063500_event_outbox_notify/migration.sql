-- Hand-written (schema.prisma cannot express triggers, and the schema engine's diff ignores them,
-- so `npm run migration:new -- --check` stays clean): every statement that writes Event rows
-- notifies channel "event_outbox" when its transaction commits, and the outbox relay, listening,
-- wakes at once instead of at its next poll. One notification per statement (the relay reads the
-- outbox, not the payload); PostgreSQL folds identical ones within a transaction.
CREATE FUNCTION "event_outbox_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('event_outbox', '');
  RETURN NULL;
END
$$;

CREATE TRIGGER "Event_outbox_notify"
  AFTER INSERT ON "Event"
  FOR EACH STATEMENT
  EXECUTE FUNCTION "event_outbox_notify"();
