import { ApiError, errorMessage, plainMessage, problemField, problemFields } from '../api/client.ts';

/**
 * A server failure as sentences (never the raw answer), announced at once. Problems the server
 * tied to fields are listed too, by the fields' labels: the inline message under a field is not
 * announced, and clears as soon as the field is edited.
 */
export function ErrorAlert({ error, prefix, fieldLabels = {} }: { error: unknown; prefix?: string; fieldLabels?: Record<string, string> }) {
  if (!error) return null;
  const problems = error instanceof ApiError ? error.fieldErrors : [];
  return (
    <div role="alert" className="alert alert-error">
      {prefix ? `${prefix} ` : ''}
      {errorMessage(error)}
      {problems.length > 0 && (
        <ul className="problem-list">
          {problems.map((p) => {
            const name = problemField(p);
            // The closest name with a label (`destination.queueUrl` before `destination`).
            const label = problemFields(p).map((n) => fieldLabels[n]).find(Boolean) ?? name;
            return <li key={p.path}>{`${label}: ${plainMessage(name, p.message)}`}</li>;
          })}
        </ul>
      )}
    </div>
  );
}
