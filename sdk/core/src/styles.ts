/**
 * The ad's stylesheet, inside its own shadow root (nothing reaches the host's page).
 * The host themes it with CSS custom properties, which cross the shadow boundary:
 * --chat-ads-bg, --chat-ads-fg, --chat-ads-muted, --chat-ads-accent, --chat-ads-accent-fg,
 * --chat-ads-border, --chat-ads-radius, --chat-ads-font. Every image box has its size
 * before the image arrives, and the poll's results take the options' place: no layout shift.
 */
const LIGHT =
  '--bg:var(--chat-ads-bg,#fff);--fg:var(--chat-ads-fg,#1b1f24);--mu:var(--chat-ads-muted,#57606a);--ac:var(--chat-ads-accent,#0b57d0);--af:var(--chat-ads-accent-fg,#fff);--bd:var(--chat-ads-border,#d0d7de)';
const DARK =
  '--bg:var(--chat-ads-bg,#1e2227);--fg:var(--chat-ads-fg,#e6edf3);--mu:var(--chat-ads-muted,#9da7b3);--ac:var(--chat-ads-accent,#8ab4f8);--af:var(--chat-ads-accent-fg,#0b1a33);--bd:var(--chat-ads-border,#3d444d)';

export const CSS = `
:host{display:block;contain:content}
.ad{${LIGHT};box-sizing:border-box;background:var(--bg);color:var(--fg);border:1px solid var(--bd);border-radius:var(--chat-ads-radius,12px);font:14px/1.4 var(--chat-ads-font,system-ui,sans-serif);padding:12px;max-width:100%;overflow:hidden}
@media (prefers-color-scheme:dark){.auto{${DARK}}}
.dark{${DARK}}
*{box-sizing:border-box}
.top{display:flex;align-items:center;gap:8px;margin-bottom:8px;color:var(--mu);font-size:12px}
.logo{width:24px;height:24px;border-radius:4px;object-fit:contain;flex:none}
.lbl{font-weight:600;text-transform:uppercase;letter-spacing:.04em}
.test{background:#b3261e;color:#fff;border-radius:4px;padding:0 6px;font-weight:700}
.wtb{font:inherit;background:none;border:0;padding:0;color:inherit;text-decoration:underline;cursor:pointer}
.wta{font-size:12px}
.adv{color:var(--fg);font-weight:600;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.hero{display:block;width:100%;height:auto;aspect-ratio:1.91/1;object-fit:cover;border-radius:8px;background:var(--bd)}
h3,h4{margin:8px 0 4px;font-size:15px;line-height:1.3}
p{margin:0 0 8px;color:var(--mu)}
a{color:inherit}
a:focus-visible,button:focus-visible,[tabindex]:focus-visible{outline:2px solid var(--ac);outline-offset:2px}
.cta{display:inline-block;background:var(--ac);color:var(--af);border-radius:8px;padding:6px 12px;text-decoration:none;font-weight:600}
.main{text-decoration:none;display:block}
.tiles{display:grid;grid-template-columns:repeat(3,minmax(0,1fr));gap:8px;list-style:none;margin:0;padding:0}
.tiles a{text-decoration:none;display:block}
.tiles img{display:block;width:100%;height:auto;aspect-ratio:1/1;object-fit:cover;border-radius:8px;background:var(--bd)}
.tiles h4{font-size:13px}
.opts{display:grid;gap:6px;margin:8px 0}
.opt{position:relative;display:block;width:100%;min-height:36px;text-align:left;font:inherit;color:var(--fg);background:transparent;border:1px solid var(--bd);border-radius:8px;padding:8px 10px;cursor:pointer;overflow:hidden}
.opt:disabled{cursor:default}
.bar{position:absolute;inset:0 auto 0 0;background:var(--ac);opacity:.18}
.opt span{position:relative}
.pct{float:right;font-weight:600}
.hide{visibility:hidden}
.foot{display:flex;flex-wrap:wrap;align-items:center;gap:6px;margin-top:8px;color:var(--mu);font-size:12px}
.fb{font:inherit;background:transparent;color:var(--mu);border:1px solid var(--bd);border-radius:6px;padding:3px 8px;cursor:pointer;line-height:0}
.fb svg{width:14px;height:14px;fill:currentColor}
.fb[aria-pressed=true]{background:var(--ac);color:var(--af);border-color:var(--ac)}
.fb:disabled{cursor:default}
.why{display:flex;flex-wrap:wrap;gap:6px;flex-basis:100%}
.why .fb{line-height:normal}
.why[hidden]{display:none}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
`;
