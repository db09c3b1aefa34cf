// Each page's h1 takes focus when the page opens, so keyboard and screen-reader users land on
// the new content after a client-side navigation (and hear its title).
import { useEffect, useRef } from 'react';

export function PageHeading({ children, description }: { children: React.ReactNode; description?: React.ReactNode }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    ref.current?.focus();
  }, []);
  return (
    <header className="page-header">
      <h1 ref={ref} tabIndex={-1}>
        {children}
      </h1>
      {description && <p className="page-description">{description}</p>}
    </header>
  );
}
