-- The bound in force as the delivery run last reported it has one name from the column to the API:
-- effectiveInFlight (it was inFlightBound). A rename, so what a run reported is kept.
ALTER TABLE "WebhookSubscription" RENAME COLUMN "inFlightBound" TO "effectiveInFlight";
