import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/*
 * shared/PROTOCOL.md gives every rule a stable id. The code that enforces a rule names the id,
 * and a test that checks it cites it in its name (`it('[NOTES7] …')`), so a reader can go from
 * any rule to both, and a rule nobody enforces or tests shows here.
 */

const root = join(import.meta.dirname, '..', '..');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const ruleIds = [...readFileSync(join(root, 'shared', 'PROTOCOL.md'), 'utf8').matchAll(/\*\*([A-Z]+\d+)\*\*/g)].map((match) => match[1]);
const code = ['server', 'shared', 'client', 'agents'].flatMap((dir) => filesUnder(join(root, dir))).map((file) => readFileSync(file, 'utf8')).join('\n');
const tests = filesUnder(join(root, 'tests')).map((file) => readFileSync(file, 'utf8')).join('\n');
/**
 * The titles of the tests and their groups: string arguments that open with citations
 * (`it('[NOTES7] …')`, `it.each(cases)('[NOTES4] refuses when %s')`). A citation in a comment
 * does not count.
 */
const testTitles = [...tests.matchAll(/\(\s*(['"`])((?:\[[A-Z]+\d+\]\s*)+)/g)].map((match) => match[2]).join('\n');

describe('the rules of shared/PROTOCOL.md', () => {
  it('have unique ids', () => {
    expect(ruleIds.length).toBeGreaterThan(50);
    expect(ruleIds.filter((id, index) => ruleIds.indexOf(id) !== index)).toEqual([]);
  });

  it('are each named by the code that enforces them', () => {
    expect(ruleIds.filter((id) => !new RegExp(`\\b${id}\\b`).test(code))).toEqual([]);
  });

  it('are each cited in the title of a test that checks them', () => {
    expect(testTitles.length).toBeGreaterThan(1000);
    expect(ruleIds.filter((id) => !testTitles.includes(`[${id}]`))).toEqual([]);
  });
});
