// The Workspace pages of the settings UI in Chromium (issue 49): an administrator makes a board and
// a role that sees only it, invites a person with that role (the link shown once), the person
// accepts it in their own browser and sees that board alone, and is deactivated: their page signs
// them out. axe-core finds no serious or critical violation on the three pages, their dialogs and
// the invitation page, at a desktop and a phone width.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { prisma } from '../../src/db/db.ts';
import { screenshot, startUiStack, violations, type UiStack } from './harness.ts';

const WAIT = { timeout: 30_000 };
let stack: UiStack;

/** Signs the administrator in: done when their first page (API keys) shows. */
async function signIn(page: Page) {
  await page.goto('/settings/');
  await page.getByLabel('E-mail').fill(stack.workspace.admin.email!);
  await page.getByLabel('Password').fill('correct horse battery staple');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor(WAIT);
}

async function tick(scope: Locator, name: RegExp) {
  await scope.locator('label', { has: scope.page().getByRole('checkbox', { name }) }).click();
  expect(await scope.getByRole('checkbox', { name }).isChecked()).toBe(true);
}

async function confirm(page: Page, button: string, action: string) {
  await page.getByRole('button', { name: button }).click();
  const dialog = page.getByRole('alertdialog');
  await dialog.waitFor(WAIT);
  await dialog.getByRole('button', { name: action }).click();
  await dialog.waitFor({ state: 'detached' });
}

describe('settings UI: boards, roles and people', { timeout: 180_000 }, () => {
  beforeAll(async () => {
    stack = await startUiStack();
  }, 240_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('makes a board and a role that sees only it, invites a person with it, who accepts, sees that board alone and is deactivated', async () => {
    const { context, page } = await stack.newPage(1440);
    const report: Record<string, string[]> = {};
    await signIn(page);

    await page.getByRole('link', { name: 'Boards' }).click();
    await page.getByRole('heading', { level: 1, name: 'Boards' }).waitFor(WAIT);
    await page.getByRole('row', { name: /Support/ }).waitFor(WAIT);
    report['boards'] = await violations(page);
    await page.getByRole('button', { name: 'New board' }).click();
    const newBoard = page.getByRole('dialog', { name: 'New board' });
    await newBoard.waitFor(WAIT);
    report['new-board'] = await violations(page);
    await newBoard.getByLabel('Name', { exact: true }).fill('Escalations');
    await newBoard.getByRole('textbox', { name: /Custom fields/ }).fill('Severity: select, required, options minor | major');
    await newBoard.getByRole('button', { name: 'Create board' }).click();
    await newBoard.waitFor({ state: 'detached' });
    const row = page.getByRole('row', { name: /Escalations/ });
    await row.waitFor(WAIT);
    expect(await row.textContent()).toContain('Severity');
    const board = await prisma.board.findFirstOrThrow({ where: { workspaceId: stack.workspace.workspace.id, name: 'Escalations' }, include: { fields: true, states: true } });
    expect(board.fields.map((f) => [f.name, f.type, f.required, f.options])).toEqual([['Severity', 'select', true, ['minor', 'major']]]);
    expect(board.states.find((s) => s.isInitial)?.name).toBe('New');
    await screenshot(page, 'workspace-boards-1440');

    await page.getByRole('link', { name: 'Roles' }).click();
    await page.getByRole('heading', { level: 1, name: 'Roles' }).waitFor(WAIT);
    await page.getByRole('row', { name: /Agent/ }).waitFor(WAIT);
    report['roles'] = await violations(page);
    await page.getByRole('button', { name: 'New role' }).click();
    const newRole = page.getByRole('dialog', { name: 'New role' });
    await newRole.waitFor(WAIT);
    report['new-role'] = await violations(page);
    await newRole.getByLabel('Name', { exact: true }).fill('Escalation engineer');
    await tick(newRole, /Create and change tickets/);
    await tick(newRole, /^Escalations/);
    await newRole.getByRole('button', { name: 'Create role' }).click();
    await newRole.waitFor({ state: 'detached' });
    await page.getByRole('row', { name: /Escalation engineer/ }).waitFor(WAIT);
    const role = await prisma.role.findFirstOrThrow({ where: { workspaceId: stack.workspace.workspace.id, name: 'Escalation engineer' }, include: { boards: true } });
    expect([role.allBoards, role.permissions, role.boards.map((b) => b.boardId)]).toEqual([false, ['tickets.write'], [board.id]]);

    await page.getByRole('link', { name: 'People' }).click();
    await page.getByRole('heading', { level: 1, name: 'People' }).waitFor(WAIT);
    report['people'] = await violations(page);
    await page.getByRole('button', { name: 'Invite person' }).click();
    const invite = page.getByRole('dialog', { name: 'Invite a person' });
    await invite.waitFor(WAIT);
    report['invite'] = await violations(page);
    const email = `invited-${stack.workspace.workspace.id}@example.test`;
    await invite.getByLabel('E-mail').fill(email);
    await invite.getByRole('button', { name: /Role/ }).click();
    await page.getByRole('option', { name: 'Escalation engineer' }).click();
    await invite.getByRole('button', { name: 'Send invitation' }).click();
    const sent = page.getByRole('dialog', { name: `${email} is invited` });
    await sent.waitFor(WAIT);
    report['invitation-link'] = await violations(page);
    const link = await sent.getByLabel('Invitation link').inputValue();
    expect(link).toMatch(/\/settings\/invitation#[A-Za-z0-9_-]{43}$/);
    await sent.getByRole('button', { name: 'Copy' }).click();
    await sent.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('row', { name: new RegExp(email) }).waitFor(WAIT);

    // The invited person, in a browser of their own.
    const invited = await stack.newPage(1440);
    await invited.page.goto(link);
    await invited.page.getByRole('heading', { level: 1, name: 'Accept the invitation' }).waitFor(WAIT);
    await invited.page.getByLabel('Your name').waitFor(WAIT);
    report['accept-invitation'] = await violations(invited.page);
    await invited.page.getByLabel('Your name').fill('Ivy Invited');
    await invited.page.getByLabel('Password').fill('a long enough password');
    await invited.page.getByRole('button', { name: 'Join the workspace' }).click();
    await invited.page.getByRole('heading', { level: 1, name: 'Notifications' }).waitFor(WAIT);
    const person = await prisma.user.findFirstOrThrow({ where: { workspaceId: stack.workspace.workspace.id, email } });
    expect([person.fullName, person.roleId]).toEqual(['Ivy Invited', role.id]);
    // What the person's role sees, through their own session.
    const boards = await invited.page.evaluate(async () => {
      const viewer = await (await fetch('/graphql?query=' + encodeURIComponent('{ viewer { csrfToken } }'))).json();
      const res = await fetch('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': viewer.data.viewer.csrfToken },
        body: JSON.stringify({ query: '{ boards(first: 10) { edges { node { name } } } }' }),
      });
      return (await res.json()).data.boards.edges.map((e: { node: { name: string } }) => e.node.name);
    });
    expect(boards).toEqual(['Escalations']);

    // Deactivated: the person's next request finds no session.
    await page.reload();
    const personRow = page.getByRole('row', { name: /Ivy Invited/ });
    await personRow.waitFor(WAIT);
    await confirm(page, 'Deactivate Ivy Invited', 'Deactivate');
    await personRow.getByText(/^Deactivated/).waitFor(WAIT);
    await screenshot(page, 'workspace-people-1440');
    await invited.page.reload();
    await invited.page.getByRole('button', { name: 'Sign in' }).waitFor(WAIT);

    // Archived: the board shows it.
    await page.getByRole('link', { name: 'Boards' }).click();
    await confirm(page, 'Archive Escalations', 'Archive board');
    await page.getByRole('row', { name: /Escalations/ }).getByText(/^Archived/).waitFor(WAIT);

    const actions = await prisma.auditEntry.findMany({ where: { workspaceId: stack.workspace.workspace.id, action: { startsWith: 'board.' } }, select: { action: true } });
    expect(actions.map((a) => a.action).sort()).toEqual(['board.archived', 'board.created']);
    expect(Object.fromEntries(Object.entries(report).filter(([, v]) => v.length))).toEqual({});
    await invited.context.close();
    await context.close();
  });

  it('the three pages at 390 px: no serious or critical violation', async () => {
    const { context, page } = await stack.newPage(390);
    await signIn(page);
    const report: Record<string, string[]> = {};
    for (const [path, heading] of [['boards', 'Boards'], ['roles', 'Roles'], ['people', 'People']] as const) {
      await page.goto(`/settings/workspace/${path}`);
      await page.getByRole('heading', { level: 1, name: heading }).waitFor(WAIT);
      await page.locator('table').first().waitFor(WAIT);
      report[path] = await violations(page);
      await screenshot(page, `workspace-${path}-390`);
    }
    expect(Object.fromEntries(Object.entries(report).filter(([, v]) => v.length))).toEqual({});
    await context.close();
  });

  it('logged no errors in the browser along the way', () => {
    expect(stack.browserErrors).toEqual([]);
  });
});
