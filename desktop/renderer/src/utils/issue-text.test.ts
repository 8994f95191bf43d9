import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAppI18n } from '../i18n';
import { trimmedText } from '../../../../shared/src/trimmed-text';
import { issueText } from './issue-text';

const zodSays = (schema: z.ZodType, value: unknown) => schema.safeParse(value).error!.issues[0].message;

describe('issueText', () => {
  const text = (lang: 'en' | 'ru', message: string) => {
    const { t } = createAppI18n(lang).global;
    return issueText(message, t as never);
  };

  it.each([
    [z.number().min(100), 50, 'must be at least 100', 'не меньше 100'],
    [z.number().max(65535), 70000, 'must be at most 65535', 'не больше 65535'],
    [z.number().gt(0), 0, 'must be more than 0', 'больше 0'],
    [z.number().int(), 1.5, 'must be a whole number', 'должно быть целым числом'],
    [z.number(), 'x', 'must be a number', 'должно быть числом'],
    [z.string(), undefined, 'is required', 'обязательно'],
    [z.string().min(1), '', 'must not be empty', 'не может быть пустым'],
    [z.string().min(8), 'abc', 'must be at least 8 characters long', 'не короче 8 символов'],
    [z.string().max(1), 'ab', 'must be at most 1 character long', 'не длиннее 1 символа'],
    [z.array(z.string()).max(2), ['a', 'b', 'c'], 'must have at most 2 items', 'не больше 2 элементов'],
    [z.array(z.string()).min(1), [], 'must not be empty', 'не может быть пустым'],
    [z.enum(['en', 'ru']), 'de', 'must be one of: en, ru', 'должно быть одним из: en, ru'],
    [z.email(), 'x', 'must be an e-mail address', 'должен быть адрес e-mail'],
    [z.url(), 'x', 'must be a URL such as https://example.org', 'должен быть URL, например https://example.org'],
    [z.string().regex(/^a$/), 'b', 'is not valid here', 'указано неверно'],
    [trimmedText(8), ' \t', 'must not be empty', 'не может быть пустым'],
    [trimmedText(8), '123456789', 'must be at most 8 characters long', 'не длиннее 8 символов'],
  ])('says %s in both languages', (schema, value, en, ru) => {
    const raw = zodSays(schema, value);
    expect(text('en', raw)).toBe(en);
    expect(text('ru', raw)).toBe(ru);
  });

  it("keeps the house's own English sentence when it knows no translation, and translates the known ones", () => {
    expect(text('ru', 'must be an IANA time zone such as Europe/Moscow')).toBe('must be an IANA time zone such as Europe/Moscow');
    expect(text('ru', 'must be at most 500')).toBe('не больше 500');
    expect(text('ru', 'must not be before from')).toBe('не может быть раньше начала');
  });
});
