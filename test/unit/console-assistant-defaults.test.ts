import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../src/resources/assistants/model.ts';
import { NEW_ASSISTANT } from '../../web/console/src/pages/assistant-defaults.ts';

const snake = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

describe("the console's new-assistant form", () => {
  it('starts from the API\'s own defaults, every scalar setting of them', () => {
    const scalars = Object.fromEntries(Object.entries(DEFAULT_SETTINGS)
      .filter(([name, value]) => name !== 'status' && ['boolean', 'number', 'string'].includes(typeof value))
      .map(([name, value]) => [snake(name), value]));
    expect(NEW_ASSISTANT).toEqual(scalars);
  });
});
