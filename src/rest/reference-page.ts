// The API reference as one self-contained HTML page, rendered on the server from the OpenAPI
// document itself (so it can never disagree with it): no script, no stylesheet or font to fetch.
import type { buildOpenApiDocument } from './openapi.ts';

type Doc = ReturnType<typeof buildOpenApiDocument>;

interface Schema {
  $ref?: string;
  type?: string | string[];
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  allOf?: Schema[];
  oneOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  default?: unknown;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
}

interface Parameter {
  name: string;
  in: string;
  required: boolean;
  description?: string;
  schema: Schema;
}

interface Header {
  $ref?: string;
  description?: string;
  required?: boolean;
}

interface Response {
  description: string;
  headers?: Record<string, Header>;
  content?: Record<string, { schema: Schema }>;
}

interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  security: Record<string, string[]>[];
  parameters: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, Response>;
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The document's prose: paragraphs, and `code` spans. */
const inline = (s: string) => escapeHtml(s).replace(/`([^`]+)`/g, '<code>$1</code>');
const prose = (s: string | undefined) => (s ? s.split(/\n\n+/).map((p) => `<p>${inline(p)}</p>`).join('') : '');

const anchor = (operationId: string) => `op-${operationId}`;
const refName = (ref: string) => ref.split('/').pop()!;

function typeLabel(s: Schema): string {
  if (s.$ref) return `<a href="#schema-${refName(s.$ref)}">${escapeHtml(refName(s.$ref))}</a>`;
  // A referenced schema narrowed in place (a problem's codes): the reference names it.
  if (s.allOf) return s.allOf.filter((a) => a.$ref).map(typeLabel).join(' and ');
  if (s.anyOf) return s.anyOf.map(typeLabel).join(' or ');
  const types = s.type === undefined ? [] : [s.type].flat();
  if (!types.length) return s.properties ? 'object' : s.enum || s.const !== undefined ? '' : 'any JSON value';
  return types.map((t) => (t === 'array' && s.items ? `array of ${typeLabel(s.items)}` : escapeHtml(t))).join(' or ');
}

function range(unit: string, min: number | undefined, max: number | undefined): string[] {
  const u = unit ? ` ${unit}` : '';
  if (min !== undefined && max !== undefined) return [`${min} to ${max}${u}`];
  if (max !== undefined) return [`at most ${max}${u}`];
  if (min !== undefined) return [`at least ${min}${u}`];
  return [];
}

function constraints(s: Schema): string[] {
  const out: string[] = [];
  const json = (v: unknown) => `<code>${escapeHtml(JSON.stringify(v))}</code>`;
  if (s.enum) out.push(`one of ${s.enum.map(json).join(', ')}`);
  if (s.const !== undefined) out.push(`exactly ${json(s.const)}`);
  if (s.format) out.push(`format ${escapeHtml(s.format)}`);
  out.push(...range('characters', s.minLength, s.maxLength), ...range('', s.minimum, s.maximum));
  if (s.maxItems !== undefined) out.push(`at most ${s.maxItems} items`);
  if (s.pattern) out.push(`matches <code>${escapeHtml(s.pattern)}</code>`);
  if (s.default !== undefined) out.push(`default ${json(s.default)}`);
  return out;
}

/** The members of an object schema (or of the objects in an array), nested. */
function members(s: Schema): string {
  const target = s.items ?? (s.anyOf?.find((a) => a.properties) as Schema | undefined) ?? s;
  if (target.allOf) return '';
  if (!target.properties) return '';
  const required = new Set(target.required ?? []);
  const rows = Object.entries(target.properties).map(([name, p]) => {
    const details = [typeLabel(p), required.has(name) ? 'required' : 'optional', ...constraints(p)].filter(Boolean).join(', ');
    return `<li><code class="name">${escapeHtml(name)}</code> <span class="type">${details}</span>${p.description ? ` — ${inline(p.description)}` : ''}${members(p)}</li>`;
  });
  return `<ul class="schema">${rows.join('')}</ul>`;
}

function schemaBlock(s: Schema): string {
  const head = [typeLabel(s), ...constraints(s)].filter(Boolean).join(', ');
  return `<p class="type">${head}</p>${prose(s.description)}${members(s)}`;
}

function parametersTable(params: Parameter[]): string {
  if (!params.length) return '';
  const rows = params.map(
    (p) =>
      `<tr><th scope="row"><code>${escapeHtml(p.name)}</code></th><td>${escapeHtml(p.in)}</td><td>${p.required ? 'yes' : 'no'}</td>` +
      `<td>${[typeLabel(p.schema), ...constraints(p.schema)].filter(Boolean).join(', ')}</td><td>${inline(p.description ?? '')}</td></tr>`,
  );
  return `<h4>Parameters</h4><table><thead><tr><th scope="col">Name</th><th scope="col">In</th><th scope="col">Required</th><th scope="col">Schema</th><th scope="col">Description</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function responseBlock(status: string, r: Response): string {
  const headers = Object.keys(r.headers ?? {});
  const content = Object.entries(r.content ?? {})
    .map(([type, media]) => {
      const label = `Body (<code>${escapeHtml(type)}</code>)`;
      // A referenced schema (a problem) is described once, under Errors.
      return media.schema.allOf || media.schema.$ref ? `<p>${label}: ${typeLabel(media.schema)}</p>` : `<p>${label}:</p>${schemaBlock(media.schema)}`;
    })
    .join('');
  return (
    `<div class="response"><h5><span class="status">${escapeHtml(status)}</span> ${inline(r.description)}</h5>` +
    (headers.length ? `<p>Headers: ${headers.map((h) => `<a href="#header-${escapeHtml(h)}"><code>${escapeHtml(h)}</code></a>`).join(', ')}</p>` : '') +
    `${content}</div>`
  );
}

function scopesText(op: Operation): string {
  const alternatives = op.security.map((req) => Object.values(req).flat()).filter((a) => a.length);
  if (!alternatives.length) return 'none: any valid key';
  return `${alternatives.map((a) => `<code>${escapeHtml(a.join(' '))}</code>`).join(' or ')}`;
}

function operationSection(method: string, path: string, op: Operation): string {
  const body = op.requestBody ? Object.entries(op.requestBody.content) : [];
  return `<section class="operation" id="${anchor(op.operationId)}" aria-labelledby="${anchor(op.operationId)}-title">
<h3 id="${anchor(op.operationId)}-title"><span class="method">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code></h3>
<p class="summary">${inline(op.summary)}</p>
<dl><dt>operationId</dt><dd><code>${escapeHtml(op.operationId)}</code></dd><dt>Scopes (any one)</dt><dd>${scopesText(op)}</dd></dl>
${prose(op.description)}
${parametersTable(op.parameters)}
${body.map(([type, media]) => `<h4>Request body (<code>${escapeHtml(type)}</code>)</h4>${schemaBlock(media.schema)}`).join('')}
<h4>Responses</h4>
${Object.entries(op.responses).map(([status, r]) => responseBlock(status, r)).join('\n')}
</section>`;
}

const STYLE = `
:root{color-scheme:light dark;--fg:#1b1f24;--bg:#fff;--muted:#555f6d;--line:#d0d7de;--code:#f3f4f6;--accent:#0b57d0}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--muted:#9da7b3;--line:#30363d;--code:#161b22;--accent:#79b8ff}}
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--accent)}code{font:0.9em ui-monospace,monospace;background:var(--code);padding:0 .2em;border-radius:3px}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:var(--bg);padding:.5rem}
.layout{display:grid;grid-template-columns:minmax(14rem,20rem) 1fr;gap:2rem;max-width:90rem;margin:0 auto;padding:1rem}
nav{position:sticky;top:0;align-self:start;max-height:100vh;overflow:auto;font-size:.9rem}nav ul{list-style:none;padding-left:0}
nav li{margin:.2rem 0}main{min-width:0}h1{margin-top:0}h2{border-bottom:1px solid var(--line);padding-bottom:.3rem;margin-top:2.5rem}
.operation{border:1px solid var(--line);border-radius:6px;padding:0 1rem 1rem;margin:1.5rem 0}
.method{display:inline-block;min-width:4.5em;font:700 .8em ui-monospace,monospace;text-align:center;border:1px solid currentColor;border-radius:4px;padding:0 .3em}
.summary{font-weight:600}.type{color:var(--muted)}dl{display:grid;grid-template-columns:auto 1fr;gap:.2rem 1rem}dt{color:var(--muted)}dd{margin:0}
table{border-collapse:collapse;width:100%;font-size:.9rem;display:block;overflow-x:auto}th,td{border:1px solid var(--line);padding:.3rem .5rem;text-align:left;vertical-align:top}
ul.schema{border-left:2px solid var(--line);padding-left:1rem;list-style:none}ul.schema li{margin:.3rem 0}
.response h5{font-size:1rem;margin:1rem 0 .3rem}.status{font-family:ui-monospace,monospace;font-weight:700}
@media (max-width:50rem){.layout{grid-template-columns:1fr}nav{position:static;max-height:none}}
`;

/** The whole page for one document. */
export function renderReferencePage(doc: Doc): string {
  const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops as Record<string, Operation>).map(([method, op]) => ({ method, path, op })),
  );
  const byTag = doc.tags.map((t) => ({ tag: t.name, ops: operations.filter((o) => o.op.tags[0] === t.name) }));
  const problem = doc.components.schemas.Problem as Schema;
  const codes = (problem.properties!.code.oneOf ?? []).map(
    (c) => `<tr><th scope="row"><code>${escapeHtml(String(c.const))}</code></th><td>${inline(c.description ?? '')}</td></tr>`,
  );
  const headers = Object.entries(doc.components.headers as Record<string, Header>).map(
    ([name, h]) => `<tr><th scope="row" id="header-${escapeHtml(name)}"><code>${escapeHtml(name)}</code></th><td>${inline(h.description ?? '')}</td></tr>`,
  );
  const tagId = (tag: string) => `tag-${tag.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  const title = `${doc.info.title} ${doc.info.version}`;

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}: reference</title>
<style>${STYLE}</style>
</head>
<body>
<a class="skip" href="#main">Skip to the reference</a>
<div class="layout">
<nav aria-label="Operations">
<p><strong>${escapeHtml(doc.info.title)}</strong></p>
<ul><li><a href="#overview">Overview</a></li><li><a href="#errors">Errors</a></li><li><a href="#headers">Response headers</a></li></ul>
${byTag
  .map(
    ({ tag, ops }) =>
      `<p><a href="#${tagId(tag)}">${escapeHtml(tag)}</a></p><ul>${ops
        .map(({ method, path, op }) => `<li><a href="#${anchor(op.operationId)}"><code>${method.toUpperCase()} ${escapeHtml(path)}</code></a></li>`)
        .join('')}</ul>`,
  )
  .join('\n')}
</nav>
<main id="main">
<h1>${escapeHtml(title)}</h1>
<section id="overview" aria-labelledby="overview-title">
<h2 id="overview-title">Overview</h2>
<p>Base URL: <code>${escapeHtml(doc.servers[0].url)}</code>. The machine-readable document: <a href="openapi.json">openapi.json</a> (OpenAPI ${escapeHtml(doc.openapi)}).</p>
${prose(doc.info.description)}
${prose(doc.components.securitySchemes.bearer.description)}
</section>
<section id="errors" aria-labelledby="errors-title">
<h2 id="errors-title">Errors</h2>
<div id="schema-Problem">${schemaBlock(problem)}</div>
<table><thead><tr><th scope="col">code</th><th scope="col">Status: meaning</th></tr></thead><tbody>${codes.join('')}</tbody></table>
</section>
<section id="headers" aria-labelledby="headers-title">
<h2 id="headers-title">Response headers</h2>
<table><thead><tr><th scope="col">Header</th><th scope="col">Meaning</th></tr></thead><tbody>${headers.join('')}</tbody></table>
</section>
${byTag
  .map(
    ({ tag, ops }) =>
      `<section aria-labelledby="${tagId(tag)}"><h2 id="${tagId(tag)}">${escapeHtml(tag)}</h2>\n${ops.map(({ method, path, op }) => operationSection(method, path, op)).join('\n')}</section>`,
  )
  .join('\n')}
</main>
</div>
</body>
</html>
`;
}
