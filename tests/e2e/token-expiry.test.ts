import { describe, expect, it } from 'vitest';
import { revokeInDataDir } from '../../server/auth/revoke.ts';
import { decodeClaims } from '../../shared/protocol/claims.ts';
import { useTestServer } from '../helpers/use-test-server.ts';
import { useBrowser, waitForStatus } from '../helpers/browser.ts';

const server = useTestServer();
const people = useBrowser(server);
const now = () => Math.floor(Date.now() / 1000);

describe('links that expire or are revoked, in the browser', () => {
  it('[TOKEN2] asks for a new link when the link has expired, instead of opening the app', async () => {
    const person = await people.open('/', server.token('editor', { iat: now() - 120, exp: now() - 60 }));
    try {
      await expect.poll(() => person.page.getByRole('alert').innerText()).toBe('Your link has expired — ask for a new one.');
      expect(await person.page.getByRole('button', { name: 'New document' }).count()).toBe(0);
    } finally {
      await person.context.close();
    }
  });

  it('[TOKEN3] tells a person whose link is revoked while a document is open', async () => {
    const id = await server.createDoc('Revoked while open', 'Text.');
    const token = server.token('editor');
    const person = await people.open(`/d/${id}`, token);
    try {
      await waitForStatus(person.page, 'Connected');
      await revokeInDataDir(server.dataDir, decodeClaims(token)!.jti!, null);
      await expect
        .poll(() => person.page.getByRole('alert').allInnerTexts(), { timeout: 15_000 })
        .toContain('Your link has been revoked — ask for a new one.');
    } finally {
      await person.context.close();
    }
  });
});
