/**
 * markdown-it 15.0.3's token and parser states as plain constructors. Its Token, StateCore and
 * StateInline classes set every field through a transpiled class-field helper (`_defineProperty`:
 * a property-key conversion, an `in` test, a store), which was a tenth of a chunking pass over
 * headings holding inline syntax and more of a keywords pass over paragraphs of emphasis (issue
 * 15). These make the same objects: the same fields in the same order, the same defaults and
 * prototypes. Used by chunkyard's own markdown-it instances (the chunker's and the keyword scan's).
 */
import type { Env, MarkdownIt, Token } from 'markdown-it';

type CoreStateClass = MarkdownIt['core']['State'];
type InlineStateClass = MarkdownIt['inline']['State'];
type TokenClass = InstanceType<CoreStateClass>['Token'];
type Inline = InstanceType<InlineStateClass>;

const plainTokens = new WeakMap<TokenClass, TokenClass>();

/** A constructor of markdown-it's tokens with `Token`'s fields and prototype, as a plain function (one per Token class). */
export function plainTokenConstructor(Token: TokenClass): TokenClass {
  const known = plainTokens.get(Token);
  if (known !== undefined) return known;
  function PlainToken(this: Token, type: string, tag: string, nesting: -1 | 0 | 1): void {
    this.map = null;
    this.level = 0;
    this.children = null;
    this.content = '';
    this.markup = '';
    this.info = '';
    this.block = false;
    this.hidden = false;
    this.type = type;
    this.tag = tag;
    this.attrs = null;
    this.nesting = nesting;
    this.meta = null;
  }
  PlainToken.prototype = Token.prototype;
  // A function constructor, so that no class-field helper runs; typed as the class it stands in for.
  const plain = PlainToken as unknown as TokenClass;
  plainTokens.set(Token, plain);
  return plain;
}

/** markdown-it's core state (what `parseInline` and `parse` make), its fields set plainly and its Token `PlainToken`. */
export function plainCoreState(Base: CoreStateClass, PlainToken: TokenClass): CoreStateClass {
  function CoreState(this: InstanceType<CoreStateClass>, src: string, parser: MarkdownIt, env: Env): void {
    this.tokens = [];
    this.inlineMode = false;
    this.Token = PlainToken;
    this.src = src;
    this.env = env;
    this.md = parser;
  }
  CoreState.prototype = Object.create(Base.prototype) as InstanceType<CoreStateClass>;
  CoreState.prototype.constructor = CoreState;
  return CoreState as unknown as CoreStateClass;
}

/**
 * markdown-it's inline state, its fields set plainly (in its order), and `push` and
 * `pushPending` as markdown-it's own but for the token constructor.
 */
export function plainInlineState(Base: InlineStateClass, PlainToken: TokenClass): InlineStateClass {
  function InlineState(this: Inline, src: string, parser: MarkdownIt, env: Env, tokens: Token[]): void {
    this.pos = 0;
    this.level = 0;
    this.pending = '';
    this.pendingLevel = 0;
    this.cache = {};
    this.backticks = {};
    this.backticksScanned = false;
    this.skipHtmlSpecial = false;
    this.linkLevel = 0;
    this.delimiters = [];
    this._prev_delimiters = [];
    this.Token = PlainToken;
    this.src = src;
    this.env = env;
    this.md = parser;
    this.tokens = tokens;
    this.tokens_meta = Array(tokens.length);
    this.posMax = this.src.length;
  }
  InlineState.prototype = Object.create(Base.prototype) as Inline;
  InlineState.prototype.constructor = InlineState;
  InlineState.prototype.pushPending = function pushPending(this: Inline): Token {
    const token = new PlainToken('text', '', 0);
    token.content = this.pending;
    token.level = this.pendingLevel;
    this.tokens.push(token);
    this.pending = '';
    return token;
  };
  InlineState.prototype.push = function push(this: Inline, type: string, tag: string, nesting: -1 | 0 | 1): Token {
    if (this.pending) this.pushPending();
    const token = new PlainToken(type, tag, nesting);
    let tokenMeta: { delimiters: Inline['delimiters'] } | undefined;
    if (nesting < 0) {
      this.level--;
      this.delimiters = this._prev_delimiters.pop()!;
    }
    token.level = this.level;
    if (nesting > 0) {
      this.level++;
      this._prev_delimiters.push(this.delimiters);
      this.delimiters = [];
      tokenMeta = { delimiters: this.delimiters };
    }
    this.pendingLevel = this.level;
    this.tokens.push(token);
    this.tokens_meta.push(tokenMeta as Inline['tokens_meta'][number]);
    return token;
  };
  return InlineState as unknown as InlineStateClass;
}

/** Gives `md` plain core and inline states (its block state is left as it is). */
export function usePlainStates(md: MarkdownIt): void {
  const PlainToken = plainTokenConstructor(new md.core.State('', md, {}).Token);
  md.core.State = plainCoreState(md.core.State, PlainToken);
  md.inline.State = plainInlineState(md.inline.State, PlainToken);
}
