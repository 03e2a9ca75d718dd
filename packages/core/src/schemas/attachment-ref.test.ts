import { describe, expect, it } from 'vitest';
import { attachmentRefSchema } from './attachment-ref';

const uploaded = {
  id: '3f2504e0-4f89-41d3-9a0c-0305e82c3301',
  url: '/api/messaging/attachments/3f2504e0-4f89-41d3-9a0c-0305e82c3301',
  contentType: 'text/plain',
  name: 'notes.txt',
  size: 512,
};

describe('attachmentRefSchema', () => {
  it("reads the upload's answer as it is", () => {
    expect(attachmentRefSchema.parse(uploaded)).toEqual(uploaded);
  });

  it('refuses an entry without its url or with a size that is not a whole number of bytes', () => {
    const { url: _url, ...withoutUrl } = uploaded;
    expect(attachmentRefSchema.safeParse(withoutUrl).success).toBe(false);
    expect(attachmentRefSchema.safeParse({ ...uploaded, size: 1.5 }).success).toBe(false);
  });
});
