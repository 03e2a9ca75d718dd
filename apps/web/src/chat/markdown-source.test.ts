import { describe, expect, it } from 'vitest';
import { formatBytes, attachmentsOf } from './attachment-view';
import {
  allowedClasses,
  allowedHref,
  escapeHtml,
  markdownToHtml,
  MARKDOWN_LIMIT,
} from './markdown-source';

describe('markdown before sanitising', () => {
  it('renders bold, lists, links and a line break per newline', () => {
    expect(markdownToHtml('**bold** and _em_')).toBe(
      '<p><strong>bold</strong> and <em>em</em></p>',
    );
    expect(markdownToHtml('one\ntwo')).toBe('<p>one<br>two</p>');
    expect(markdownToHtml('- a\n- b')).toContain('<li>a</li>');
    expect(markdownToHtml('[site](https://example.com)')).toContain('href="https://example.com"');
  });

  it('highlights a fenced block of a registered language and escapes an unknown one', () => {
    const ts = markdownToHtml('```ts\nconst x: number = 1;\n```');
    expect(ts).toContain('<pre><code class="hljs language-ts">');
    expect(ts).toContain('<span class="hljs-keyword">const</span>');
    const unknown = markdownToHtml('```brainfuck\n<b>&\n```');
    expect(unknown).toContain('&lt;b&gt;&amp;');
    expect(unknown).not.toContain('<b>');
  });

  it('shows raw HTML as text, whether a block or inline', () => {
    for (const raw of [
      '<script>alert(1)</script>',
      '<img src=x onerror=alert(1)>',
      'Here: <svg onload=alert(1)>',
      '<iframe src="javascript:alert(1)"></iframe>',
      '<div style="position:fixed">x</div>',
    ]) {
      const html = markdownToHtml(raw);
      expect(html).not.toMatch(/<(script|img|svg|iframe|div)/i);
      expect(html).toContain('&lt;');
    }
  });

  it('turns an image into a link to it, never an <img>, and drops a javascript: image', () => {
    expect(markdownToHtml('![cat](https://example.com/cat.png)')).toBe(
      '<p><a href="https://example.com/cat.png">image: cat</a></p>',
    );
    const bad = markdownToHtml('![x](javascript:alert(1))');
    expect(bad).not.toContain('<img');
    expect(bad).not.toContain('href');
  });

  it('shows very long text as escaped plain text', () => {
    const long = `<b>${'a'.repeat(MARKDOWN_LIMIT)}`;
    expect(markdownToHtml(long).startsWith('<p>&lt;b&gt;')).toBe(true);
  });
});

describe('what the sanitiser keeps', () => {
  it('keeps only absolute http(s) and mailto links', () => {
    expect(allowedHref('https://example.com/a?b=1')).toBe('https://example.com/a?b=1');
    expect(allowedHref('  http://x.test ')).toBe('http://x.test/');
    expect(allowedHref('mailto:a@b.test')).toBe('mailto:a@b.test');
    for (const bad of [
      'javascript:alert(1)',
      ' JaVaScRiPt:alert(1)',
      'java\nscript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:x',
      '//evil.test',
      '/relative',
      '#top',
      '',
      null,
      undefined,
      'https://',
    ]) {
      expect(allowedHref(bad)).toBeUndefined();
    }
  });

  it('keeps only highlight.js class names', () => {
    expect(allowedClasses('hljs language-ts')).toBe('hljs language-ts');
    expect(allowedClasses('hljs-keyword message-error visually-hidden')).toBe('hljs-keyword');
    expect(allowedClasses('app')).toBe('');
  });

  it('escapes the five HTML characters', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
  });
});

describe('attachments in a message', () => {
  it('reads well-formed entries that point at this server only', () => {
    const good = {
      id: 'a',
      url: '/api/messaging/attachments/a',
      contentType: 'text/plain',
      name: 'a.txt',
      size: 3,
    };
    expect(
      attachmentsOf({
        attachments: [
          good,
          { ...good, url: 'https://evil.test/x' },
          { ...good, size: '3' },
          null,
          'x',
        ],
      }),
    ).toEqual([good]);
    expect(attachmentsOf(null)).toEqual([]);
    expect(attachmentsOf({ attachments: 'x' })).toEqual([]);
  });

  it('formats sizes for people', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(3 * 1024 * 1024)).toBe('3.0 MiB');
    expect(formatBytes(-1)).toBe('');
  });
});
