// One polite live region for outcomes of actions ("Key revoked"), read out by screen readers
// and shown on screen for a few seconds.
import { createContext, useCallback, useContext, useEffect, useState } from 'react';

/** Long enough to be read (and spoken); the outcome also shows on the page itself. */
const SHOWN_MS = 6_000;

const AnnounceContext = createContext<(message: string) => void>(() => undefined);
export const useAnnounce = () => useContext(AnnounceContext);

export function AnnouncerProvider({ children }: { children: React.ReactNode }) {
  const [message, setMessage] = useState('');
  const announce = useCallback((text: string) => {
    // Cleared first so the same text twice is announced twice.
    setMessage('');
    requestAnimationFrame(() => setMessage(text));
  }, []);
  useEffect(() => {
    if (!message) return;
    const timer = setTimeout(() => setMessage(''), SHOWN_MS);
    return () => clearTimeout(timer);
  }, [message]);
  return (
    <AnnounceContext.Provider value={announce}>
      {children}
      <div role="status" aria-live="polite" className={message ? 'toast' : 'toast toast-empty'}>
        {message}
      </div>
    </AnnounceContext.Provider>
  );
}
