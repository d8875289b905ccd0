//! RFC 6570 URI templates for MCP resource templates: parse once, then match or expand.
//!
//! A [`UriTemplate`] such as `notes://{day}/summary`, `file:///{path*}` or
//! `search://items{?q,limit}` is parsed once; [`UriTemplate::matches`] then runs on every
//! `resources/read` and returns the captured variables as a [`UriMatch`].
//!
//! # Supported subset
//!
//! | Syntax | Matches | Captured value |
//! |---|---|---|
//! | literal text | itself, byte for byte | – |
//! | `{var}` | one or more characters other than `/`, `?`, `#` | percent-decoded |
//! | `{var*}` | one or more characters other than `?`, `#` (so `/` is allowed) | percent-decoded |
//! | `{+var}` (or `{+var*}`) | like `{var*}` | kept as is |
//! | `{?a,b}` | an optional query string `?a=1&b=2` at the end of the URI | form-decoded (`+` is a space) |
//!
//! Variable names are ASCII letters, digits and `_`. Parsing rejects: several variables in a
//! non-query expression (`{a,b}`), other operators (`{#x}`, `{.x}`, `{/x}`, `{;x}`, `{&x}`, ...),
//! prefix modifiers (`{x:3}`), empty names, unclosed, unmatched or nested braces, duplicate
//! variables, two expressions with no literal text between them (`{a}{b}` is ambiguous;
//! `{a}{?q}` is fine), and any text after a query expression.
//!
//! # Matching rules
//!
//! - Percent escapes must be well formed and decode to UTF-8, otherwise that split fails.
//! - A variable followed by literal text ends at an occurrence of that literal: the *nearest*
//!   one for `{var}`, the *furthest* one for `{var*}` and `{+var}`. If the rest of the URI then
//!   fails to match, the next occurrence is tried. So `{a}-{b}` against `x-y-z` gives `a = x`,
//!   `b = y-z`, and `{path*}.{ext}` against `a/b.c.txt` gives `path = a/b.c`, `ext = txt`.
//! - A variable at the end of the template (or right before the query expression) takes all
//!   the remaining characters it may contain, at least one.
//! - Query: the text after `?` is split on `&`, each parameter at its first `=` (a bare `q` is
//!   an empty value). Parameters may come in any order, unknown ones are ignored, the first of
//!   repeated ones wins, and variables missing from the URI are absent from the match. A URI
//!   with a `#` fragment never matches a query template; a URI with a query string never
//!   matches a template without a query expression (unless literal text accounts for it).
//! - Failed (variable, position) attempts are memoized, and the escapes of the URI are checked once
//!   per match (so trying a candidate value costs O(1)): matching is linear in the URI for one or
//!   two variables and at worst quadratic, and it never panics. URIs longer than
//!   [`MAX_MATCHED_URI_LENGTH`] never match, and a match gives up (no match) after trying
//!   [`MAX_MATCH_CANDIDATES`] candidate values: a crafted URI costs a millisecond or so, not the
//!   second that the quadratic worst case of three variables over 8 KiB of `;` would take.

use std::collections::HashSet;
use std::fmt::{self, Write as _};
use std::str::FromStr;
use std::sync::Arc;

/// How many candidate values [`UriTemplate::matches`] tries at most before it gives up.
pub const MAX_MATCH_CANDIDATES: usize = 200_000;

/// The longest URI [`UriTemplate::matches`] considers (8 KiB); longer ones never match, which
/// bounds the work a crafted URI can cause.
pub const MAX_MATCHED_URI_LENGTH: usize = 8 * 1024;

/// A parsed RFC 6570 URI template (the subset described in the [module docs](self)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriTemplate {
    source: String,
    /// Literal text before the first expression (the whole template if there is none).
    head: String,
    /// Each variable expression with the literal text that follows it.
    steps: Vec<Step>,
    /// The variables of the trailing `{?a,b}` expression, if any.
    query: Option<Vec<Arc<str>>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Step {
    name: Arc<str>,
    kind: Kind,
    /// Literal text up to the next expression; empty only for the last step.
    tail: String,
}

/// `{var}`, `{var*}` or `{+var}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Simple,
    Explode,
    Reserved,
}

/// Why a URI template could not be parsed or expanded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{stage} URI template `{template}`: {reason}")]
pub struct UriTemplateError {
    stage: &'static str,
    template: String,
    reason: String,
}

/// A parse failure: byte offset and description.
type Fail = (usize, String);

fn fail<T>(at: usize, what: impl Into<String>) -> Result<T, Fail> {
    Err((at, what.into()))
}

impl UriTemplate {
    /// Parses `template`, rejecting anything outside the supported subset.
    pub fn parse(template: &str) -> Result<UriTemplate, UriTemplateError> {
        Self::parse_inner(template).map_err(|(at, what)| UriTemplateError {
            stage: "invalid",
            template: template.to_owned(),
            reason: format!("{what} at byte {at}"),
        })
    }

    fn parse_inner(template: &str) -> Result<UriTemplate, Fail> {
        let bytes = template.as_bytes();
        let (mut head, mut steps, mut query) = (String::new(), Vec::<Step>::new(), None);
        let mut seen: Vec<&str> = Vec::new();
        let (mut i, mut literal_start) = (0, 0);
        while let Some(&b) = bytes.get(i) {
            if b == b'}' {
                return fail(i, "unmatched `}`");
            } else if b != b'{' {
                i += 1;
                continue;
            }
            let braces = (i + 1..bytes.len()).find(|&j| matches!(bytes[j], b'{' | b'}'));
            let Some(close) = braces else {
                return fail(i, "unclosed `{`");
            };
            if bytes[close] == b'{' {
                return fail(close, "nested `{`");
            }
            // `{` and `}` are ASCII, so these slices are on char boundaries.
            let (kind, names) = parse_expression(&template[i + 1..close], i + 1)?;
            for &(name, at) in &names {
                if seen.contains(&name) {
                    return fail(at, format!("duplicate variable `{name}`"));
                }
                seen.push(name);
            }
            let literal = template[literal_start..i].to_owned();
            match steps.last_mut() {
                None => head = literal,
                Some(_) if literal.is_empty() && kind.is_some() => {
                    return fail(i, "adjacent expressions with no literal text between them");
                }
                Some(last) => last.tail = literal,
            }
            let names = names.into_iter().map(|(name, _)| Arc::from(name));
            match kind {
                Some(kind) => steps.extend(names.map(|name| Step {
                    name,
                    kind,
                    tail: String::new(),
                })),
                None if close + 1 < bytes.len() => {
                    return fail(
                        close + 1,
                        "a query expression must end the template, found more text",
                    );
                }
                None => query = Some(names.collect()),
            }
            i = close + 1;
            literal_start = i;
        }
        if query.is_none() {
            let literal = template[literal_start..].to_owned();
            match steps.last_mut() {
                None => head = literal,
                Some(last) => last.tail = literal,
            }
        }
        Ok(UriTemplate {
            source: template.to_owned(),
            head,
            steps,
            query,
        })
    }

    /// The template source, exactly as parsed.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The variable names in order of appearance, query variables included.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        let query = self.query.iter().flatten().map(|name| &**name);
        self.steps.iter().map(|step| &*step.name).chain(query)
    }

    /// Whether the template has no expressions at all (a plain URI, matched exactly).
    pub fn is_literal(&self) -> bool {
        self.steps.is_empty() && self.query.is_none()
    }

    /// Matches a concrete URI against the template, capturing the variables.
    ///
    /// Returns `None` if the URI does not match (or is longer than [`MAX_MATCHED_URI_LENGTH`]);
    /// see the [module docs](self) for the rules.
    pub fn matches(&self, uri: &str) -> Option<UriMatch> {
        let mut budget = MAX_MATCH_CANDIDATES;
        self.match_within(uri, &mut budget)
    }

    /// [`matches`](Self::matches), trying at most `budget` candidate values (what is left of it
    /// is left in it).
    fn match_within(&self, uri: &str, budget: &mut usize) -> Option<UriMatch> {
        if uri.len() > MAX_MATCHED_URI_LENGTH {
            return None;
        }
        let mut pos = uri.starts_with(&self.head).then_some(self.head.len())?;
        let index = UriIndex::new(uri);
        let mut frames: Vec<Frame> = Vec::with_capacity(self.steps.len());
        // (step, position) pairs known not to match, and the outcome of the rest of the URI at
        // each end position tried: they keep backtracking polynomial.
        let mut failed = HashSet::new();
        let mut rest_failed = HashSet::new();
        let mut entering = true;
        loop {
            if entering {
                let depth = frames.len();
                match self.steps.get(depth) {
                    None if !rest_failed.contains(&pos) => {
                        if self.rest_matches(uri, pos) {
                            return self.capture(uri, &frames, pos);
                        }
                        rest_failed.insert(pos);
                    }
                    Some(step) if !failed.contains(&(depth, pos)) => {
                        frames.push(Frame::new(step, &index, pos));
                    }
                    _ => {}
                }
            }
            // Try the next candidate of the innermost variable; backtrack when it has none.
            let depth = frames.len().checked_sub(1)?;
            let (step, frame) = (self.steps.get(depth)?, frames.get_mut(depth)?);
            entering = match frame.next_candidate(step, uri, &index, budget) {
                Some(end) => {
                    pos = end + step.tail.len();
                    true
                }
                None if *budget == 0 => return None,
                None => {
                    failed.insert((depth, frame.pos));
                    frames.pop();
                    false
                }
            };
        }
    }

    /// Whether `uri[pos..]`, after all variables, is empty or an acceptable query string.
    fn rest_matches(&self, uri: &str, pos: usize) -> bool {
        let Some(rest) = uri.get(pos..) else {
            return false;
        };
        let valid = |query: &str, name: &str| {
            query_param(query, name).is_none_or(|value| decodes_to_utf8(value, true))
        };
        match (&self.query, rest.strip_prefix('?')) {
            _ if rest.is_empty() => true,
            (Some(names), Some(query)) => {
                !query.contains('#') && names.iter().all(|name| valid(query, name))
            }
            _ => false,
        }
    }

    fn capture(&self, uri: &str, frames: &[Frame], pos: usize) -> Option<UriMatch> {
        let mut captures = Vec::with_capacity(self.variables().count());
        for (step, frame) in self.steps.iter().zip(frames) {
            let raw = uri.get(frame.pos..frame.end)?;
            let value = match step.kind {
                Kind::Reserved => raw.to_owned(),
                Kind::Simple | Kind::Explode => decode(raw, false)?,
            };
            captures.push((step.name.clone(), value));
        }
        let query = uri.get(pos..).and_then(|rest| rest.strip_prefix('?'));
        for name in self.query.iter().flatten() {
            if let Some(value) = query.and_then(|query| query_param(query, name)) {
                captures.push((name.clone(), decode(value, true)?));
            }
        }
        Some(UriMatch { captures })
    }

    /// Builds a URI from variable values: the inverse of [`matches`](Self::matches).
    ///
    /// `{var}` values percent-encode everything but unreserved characters; `{var*}` values also
    /// keep reserved characters such as `/` (except `?` and `#`); `{+var}` values additionally
    /// keep existing `%XX` escapes (they are matched back as is). Query variables missing from
    /// `values` are omitted, present ones are form-encoded. A missing or empty non-query
    /// variable, or a name the template does not have, is an error. The first value given for
    /// a name wins. Matching gives the values back unless a value contains the literal text
    /// that follows its variable, or a `{+var}` value is not already in URI form.
    pub fn expand(&self, values: &[(&str, &str)]) -> Result<String, UriTemplateError> {
        let error = |reason: String| UriTemplateError {
            stage: "cannot expand",
            template: self.source.clone(),
            reason,
        };
        let known = |name: &str| self.variables().any(|v| v == name);
        if let Some((name, _)) = values.iter().find(|(name, _)| !known(name)) {
            return Err(error(format!("unknown variable `{name}`")));
        }
        let lookup = |name: &str| values.iter().find(|(n, _)| *n == name).map(|(_, v)| *v);
        let mut out = String::with_capacity(self.source.len() + values.len() * 16);
        out.push_str(&self.head);
        for Step { name, kind, tail } in &self.steps {
            match lookup(name) {
                None => return Err(error(format!("missing value for variable `{name}`"))),
                Some("") => return Err(error(format!("empty value for variable `{name}`"))),
                Some(value) => encode_into(&mut out, value, Some(*kind)),
            }
            out.push_str(tail);
        }
        let present = self.query.iter().flatten();
        let present = present.filter_map(|name| Some((name, lookup(name)?)));
        for (i, (name, value)) in present.enumerate() {
            out.push(if i == 0 { '?' } else { '&' });
            out.push_str(name);
            out.push('=');
            encode_into(&mut out, value, None);
        }
        Ok(out)
    }
}

impl fmt::Display for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

impl FromStr for UriTemplate {
    type Err = UriTemplateError;

    fn from_str(template: &str) -> Result<Self, Self::Err> {
        UriTemplate::parse(template)
    }
}

/// A parsed expression: its kind (`None` for a query) and its variables with their offsets.
type Expression<'a> = (Option<Kind>, Vec<(&'a str, usize)>);

fn parse_expression(body: &str, at: usize) -> Result<Expression<'_>, Fail> {
    let (mut kind, list, mut offset) = match body.as_bytes().first() {
        Some(b'+') => (Some(Kind::Reserved), &body[1..], at + 1),
        Some(b'?') => (None, &body[1..], at + 1),
        Some(&op @ (b'#' | b'.' | b'/' | b';' | b'&' | b'=' | b'!' | b'@' | b'|')) => {
            return fail(at, format!("unsupported operator `{}`", char::from(op)));
        }
        _ => (Some(Kind::Simple), body, at),
    };
    let mut names = Vec::new();
    for spec in list.split(',') {
        if kind.is_some() && !names.is_empty() {
            return fail(
                offset - 1,
                "more than one variable in a non-query expression",
            );
        }
        let (name, explode) = spec.strip_suffix('*').map_or((spec, false), |n| (n, true));
        if name.is_empty() {
            return fail(offset, "empty variable name");
        }
        let invalid = |&(_, c): &(usize, char)| !(c.is_ascii_alphanumeric() || c == '_');
        if let Some((j, c)) = name.char_indices().find(invalid) {
            return fail(
                offset + j,
                format!("invalid character `{c}` in variable name"),
            );
        }
        match kind {
            Some(Kind::Simple) if explode => kind = Some(Kind::Explode),
            None if explode => {
                return fail(
                    offset + name.len(),
                    "explode modifier `*` in a query expression",
                );
            }
            _ => {}
        }
        names.push((name, offset));
        offset += spec.len() + 1;
    }
    Ok((kind, names))
}

/// One variable being matched: where its value starts, where the value tried ends, and the
/// candidate ends `lo..hi` not tried yet.
struct Frame {
    pos: usize,
    end: usize,
    lo: usize,
    hi: usize,
}

impl Frame {
    fn new(step: &Step, index: &UriIndex, pos: usize) -> Frame {
        let len = index.len();
        let limit = if step.kind == Kind::Simple {
            index.next_segment_stop(pos)
        } else {
            index.next_query_stop(pos)
        };
        let (lo, hi) = if step.tail.is_empty() {
            // The last variable: only the longest run can be followed by the end or the query.
            (limit, if limit > pos { limit + 1 } else { limit })
        } else {
            (pos + 1, limit.min(len.saturating_sub(step.tail.len())) + 1)
        };
        Frame {
            pos,
            end: pos,
            lo,
            hi,
        }
    }

    /// The next end where the step's tail follows and the value is acceptable, in the step's
    /// order of preference: nearest first for `{var}`, furthest first otherwise.
    /// Each position tried takes one from `budget`; at zero, there is no next candidate.
    fn next_candidate(
        &mut self,
        step: &Step,
        uri: &str,
        index: &UriIndex,
        budget: &mut usize,
    ) -> Option<usize> {
        let tail_at = |q: usize| {
            uri.as_bytes()
                .get(q..)
                .is_some_and(|r| r.starts_with(step.tail.as_bytes()))
        };
        let valid = |q: usize| {
            uri.get(self.pos..q).is_some()
                && (step.kind == Kind::Reserved || index.decodes_to_utf8(self.pos, q))
        };
        while self.lo < self.hi && *budget > 0 {
            *budget -= 1;
            let q = if step.kind == Kind::Simple {
                self.lo += 1;
                self.lo - 1
            } else {
                self.hi -= 1;
                self.hi
            };
            if tail_at(q) && valid(q) {
                self.end = q;
                return Some(q);
            }
        }
        None
    }
}

/// What matching needs to know about a URI, computed once per match so that each candidate value
/// is checked in constant time.
struct UriIndex {
    /// For each position, the first position at or after it holding `?` or `#` (or the length).
    query_stop: Vec<usize>,
    /// For each position, the first position at or after it holding `/`, `?` or `#`.
    segment_stop: Vec<usize>,
    /// For each position, how many malformed escapes (`%` not followed by two hex digits) start
    /// before it.
    bad_escapes: Vec<usize>,
    /// Whether each byte is a `%`.
    percent: Vec<bool>,
    /// For each position, the index of the first decoded byte coming from that position or later.
    unit_at: Vec<usize>,
    /// For each decoded byte, the decoded byte where the UTF-8 character containing it starts
    /// (`None` if it belongs to no valid character).
    owner: Vec<Option<usize>>,
    /// For each decoded byte starting a valid character, the character's length (0 otherwise).
    char_len: Vec<usize>,
    /// For each decoded byte, how many decoded bytes before it belong to no valid character.
    unowned: Vec<usize>,
}

impl UriIndex {
    fn new(uri: &str) -> UriIndex {
        let bytes = uri.as_bytes();
        let len = bytes.len();
        let mut query_stop = vec![len; len + 1];
        let mut segment_stop = vec![len; len + 1];
        for i in (0..len).rev() {
            let b = bytes[i];
            query_stop[i] = if matches!(b, b'?' | b'#') {
                i
            } else {
                query_stop[i + 1]
            };
            segment_stop[i] = if matches!(b, b'/' | b'?' | b'#') {
                i
            } else {
                segment_stop[i + 1]
            };
        }
        let hex = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_hexdigit);
        let percent: Vec<bool> = bytes.iter().map(|&b| b == b'%').collect();
        let mut bad_escapes = Vec::with_capacity(len + 1);
        let mut units = Vec::with_capacity(len);
        let mut unit_at = vec![0; len + 1];
        let mut bad = 0;
        let mut i = 0;
        while i < len {
            bad_escapes.push(bad);
            unit_at[i] = units.len();
            if percent[i] && hex(i + 1) && hex(i + 2) {
                let digits = uri.get(i + 1..i + 3).unwrap_or_default();
                units.push(u8::from_str_radix(digits, 16).unwrap_or_default());
                // The two hex digits belong to the escape's byte.
                bad_escapes.extend([bad, bad]);
                unit_at[i + 1..i + 3].fill(units.len());
                i += 3;
            } else {
                bad += usize::from(percent[i]);
                units.push(bytes[i]);
                i += 1;
            }
        }
        bad_escapes.push(bad);
        unit_at[len] = units.len();
        let mut char_len = vec![0; units.len()];
        let mut owner = vec![None; units.len()];
        for start in 0..units.len() {
            let need = match units[start] {
                0x00..=0x7F => 1,
                0xC2..=0xDF => 2,
                0xE0..=0xEF => 3,
                0xF0..=0xF4 => 4,
                _ => continue,
            };
            let valid = units
                .get(start..start + need)
                .is_some_and(|c| std::str::from_utf8(c).is_ok());
            if valid {
                char_len[start] = need;
                owner[start..start + need].fill(Some(start));
            }
        }
        let mut unowned = Vec::with_capacity(units.len() + 1);
        let mut count = 0;
        for o in &owner {
            unowned.push(count);
            count += usize::from(o.is_none());
        }
        unowned.push(count);
        UriIndex {
            query_stop,
            segment_stop,
            bad_escapes,
            percent,
            unit_at,
            owner,
            char_len,
            unowned,
        }
    }

    fn len(&self) -> usize {
        self.percent.len()
    }

    /// The first `?` or `#` at or after `pos`, or the end.
    fn next_query_stop(&self, pos: usize) -> usize {
        self.query_stop.get(pos).copied().unwrap_or(self.len())
    }

    /// The first `/`, `?` or `#` at or after `pos`, or the end.
    fn next_segment_stop(&self, pos: usize) -> usize {
        self.segment_stop.get(pos).copied().unwrap_or(self.len())
    }

    /// Whether `uri[from..to]` has only well-formed escapes and percent-decodes to UTF-8: the
    /// same answer as decoding the slice on its own, in constant time.
    fn decodes_to_utf8(&self, from: usize, to: usize) -> bool {
        if from >= to {
            return true;
        }
        if to > self.len() {
            return false;
        }
        // Hex digits are never `%`, so every `%` in the slice starts an escape there as in the
        // whole URI; the slice must hold no malformed one and cut none at its end.
        let cut = |p: Option<usize>| p.is_some_and(|p| p >= from && self.percent[p]);
        if self.bad_escapes[to] != self.bad_escapes[from]
            || cut(to.checked_sub(1))
            || cut(to.checked_sub(2))
        {
            return false;
        }
        // A slice starting inside an escape begins with plain hex digits (ASCII, always valid);
        // the rest decodes to the bytes `a..b` of the whole URI's decoding, which are valid
        // UTF-8 when every byte belongs to a whole character inside the range.
        let (a, b) = (self.unit_at[from], self.unit_at[to]);
        if a >= b {
            return true;
        }
        let last_start = self.owner[b - 1];
        self.unowned[b] == self.unowned[a]
            && self.owner[a] == Some(a)
            && last_start.is_some_and(|s| s + self.char_len[s] == b)
    }
}

/// The value of the first `name` parameter in a query string (without the `?`).
fn query_param<'q>(query: &'q str, name: &str) -> Option<&'q str> {
    query.split('&').find_map(|pair| {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        (key == name).then_some(value)
    })
}

/// Percent-decoded bytes of `raw` (`+` as a space if `plus`); `None` items are bad escapes.
fn decoded(raw: &str, plus: bool) -> impl Iterator<Item = Option<u8>> + '_ {
    let hex = |d: &u8| char::from(*d).to_digit(16);
    let mut bytes = raw.as_bytes();
    std::iter::from_fn(move || {
        let (&b, rest) = bytes.split_first()?;
        bytes = rest;
        Some(match (b, rest) {
            (b'%', [hi, lo, rest @ ..]) => {
                bytes = rest;
                let byte = hex(hi).zip(hex(lo)).map(|(hi, lo)| (hi << 4) | lo);
                byte.and_then(|byte| u8::try_from(byte).ok())
            }
            (b'%', _) => {
                bytes = &[];
                None
            }
            (b'+', _) if plus => Some(b' '),
            _ => Some(b),
        })
    })
}

/// Whether `raw` has only well-formed escapes and decodes to UTF-8, without allocating.
fn decodes_to_utf8(raw: &str, plus: bool) -> bool {
    if !raw.contains('%') {
        return true;
    }
    // Collect each multi-byte character in `buf` and check it once complete.
    let (mut buf, mut len, mut need) = ([0u8; 4], 0, 0);
    for b in decoded(raw, plus) {
        let Some(b) = b else { return false };
        if need == 0 {
            len = 0;
            need = match b {
                0x00..=0x7F => continue,
                0xC2..=0xDF => 2,
                0xE0..=0xEF => 3,
                0xF0..=0xF4 => 4,
                _ => return false,
            };
        }
        buf[len] = b; // `len < need <= 4`
        len += 1;
        if len == need {
            if std::str::from_utf8(&buf[..len]).is_err() {
                return false;
            }
            need = 0;
        }
    }
    need == 0
}

/// Percent-decodes `raw` (`+` as a space if `plus`); `None` for bad escapes or non-UTF-8.
fn decode(raw: &str, plus: bool) -> Option<String> {
    if !raw.contains(['%', '+']) {
        return Some(raw.to_owned());
    }
    String::from_utf8(decoded(raw, plus).collect::<Option<_>>()?).ok()
}

/// Appends `value` percent-encoded for a variable of `kind`, or form-encoded if `kind` is `None`:
/// unreserved characters are always kept, reserved ones (but `?` and `#`) for `{var*}` and
/// `{+var}`, existing `%XX` escapes for `{+var}`, and a space is `+` in a form.
fn encode_into(out: &mut String, value: &str, kind: Option<Kind>) {
    let bytes = value.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        let unreserved = b.is_ascii_alphanumeric() || b"-._~".contains(&b);
        let reserved = b"/:@[]!$&'()*+,;=".contains(&b);
        let hex = |h: &[u8]| h.iter().all(u8::is_ascii_hexdigit);
        let escape = b == b'%' && bytes.get(i + 1..i + 3).is_some_and(hex);
        let keep = match kind {
            Some(Kind::Simple) | None => unreserved,
            Some(Kind::Explode) => unreserved || reserved,
            Some(Kind::Reserved) => unreserved || reserved || escape,
        };
        if keep {
            out.push(char::from(b));
        } else if kind.is_none() && b == b' ' {
            out.push('+');
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
}

/// The variables captured by [`UriTemplate::matches`], in template order; query variables
/// absent from the URI are not present.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct UriMatch {
    captures: Vec<(Arc<str>, String)>,
}

impl UriMatch {
    /// The value captured for `name`, if any.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.iter().find(|&(n, _)| n == name).map(|(_, v)| v)
    }

    /// The `(name, value)` pairs in template order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.captures.iter().map(|(n, v)| (&**n, v.as_str()))
    }

    /// The number of captured variables.
    pub fn len(&self) -> usize {
        self.captures.len()
    }

    /// Whether nothing was captured.
    pub fn is_empty(&self) -> bool {
        self.captures.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NO: &str = "no match";

    #[test]
    fn the_escape_index_agrees_with_decoding_each_slice() {
        let samples = [
            "%41-%C3%A9-%E2%82%AC/%F0%9F%98%80",
            "%%41%4%ZZ%c3%a9%C3",
            "a%C3%A9é%80%C3%28%E2%82%",
            "%ED%A0%80%F4%90%80%80%C0%AF",
            "plain/text?q=1#frag",
            "%E2%82%AC%E2%82%AC%",
            "€%82%AC%C3é",
        ];
        for uri in samples {
            let index = UriIndex::new(uri);
            for from in 0..=uri.len() {
                for to in from..=uri.len() {
                    let Some(slice) = uri.get(from..to) else {
                        continue;
                    };
                    assert_eq!(
                        index.decodes_to_utf8(from, to),
                        decodes_to_utf8(slice, false),
                        "{uri:?}[{from}..{to}] = {slice:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn crafted_uris_are_matched_in_linear_time_and_long_ones_refused() {
        // Each `-` is a candidate end of `a`, and each leaves `b` with no valid end: this took
        // quadratic time (a minute for 80 KB) before escapes were indexed once per URI.
        let body = "%41-".repeat(2000);
        assert_eq!(m("x://{a}-{b}", &format!("x://{body}/")), NO);
        assert_eq!(
            m("x://{a}-{b}", &format!("x://{body}z")),
            format!("a=A, b={}z", "A-".repeat(1999))
        );
        assert_eq!(
            m("x://{a*}-{b}", &format!("x://{body}z")),
            format!("a={}A, b=z", "A-".repeat(1999))
        );
        let long = format!("x://{}", "a".repeat(MAX_MATCHED_URI_LENGTH));
        assert_eq!(m("x://{a}", &long), NO);
        let longest = &long[..MAX_MATCHED_URI_LENGTH];
        assert_eq!(
            m("x://{a}", longest),
            format!("a={}", "a".repeat(MAX_MATCHED_URI_LENGTH - 4))
        );
    }

    fn t(template: &str) -> UriTemplate {
        UriTemplate::parse(template).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The match as `name=value` pairs joined by `, `, or [`NO`].
    fn m(template: &str, uri: &str) -> String {
        let Some(found) = t(template).matches(uri) else {
            return NO.into();
        };
        let pairs: Vec<_> = found.iter().map(|(n, v)| format!("{n}={v}")).collect();
        pairs.join(", ")
    }

    #[test]
    fn simple_variables() {
        let notes = "notes://{day}/summary";
        assert_eq!(m(notes, "notes://2025-01-02/summary"), "day=2025-01-02");
        assert_eq!(m(notes, "notes://a/b/summary"), NO);
        assert_eq!(m(notes, "notes:///summary"), NO);
        assert_eq!(m(notes, "notes://x/summaryX"), NO);
        assert_eq!(m(notes, "notes://x/summary?a"), NO);
        let conformance = "test://template/{id}/data";
        assert_eq!(m(conformance, "test://template/123/data"), "id=123");
        assert_eq!(m("user://{id}", "user://caf%C3%A9"), "id=café");
        for uri in ["user://%ZZ", "user://%C3", "user://a%2", "user://a/b"] {
            assert_eq!(m("user://{id}", uri), NO, "{uri}");
        }
    }

    #[test]
    fn explode_and_reserved_variables() {
        let file = "file:///{path*}";
        assert_eq!(m(file, "file:///src/main.rs"), "path=src/main.rs");
        assert_eq!(m(file, "file:///a%20b"), "path=a b");
        assert_eq!(m(file, "file:///a?b"), NO);
        assert_eq!(m("file:///{+path}", "file:///a%20b/c"), "path=a%20b/c");
        assert_eq!(m("file:///{+path*}", "file:///a/%ZZ"), "path=a/%ZZ");
    }

    #[test]
    fn query_expressions() {
        let search = "search://items{?q,limit}";
        let empty = Some(UriMatch::default());
        assert_eq!(t(search).matches("search://items"), empty);
        let both = m(search, "search://items?limit=5&q=red+shoes");
        assert_eq!(both, "q=red shoes, limit=5");
        assert_eq!(m(search, "search://items?q=a&x=1"), "q=a");
        assert_eq!(m(search, "search://items?q=a&q=b&x=%ZZ"), "q=a");
        assert_eq!(m(search, "search://items?q"), "q=");
        assert_eq!(m(search, "search://itemsX"), NO);
        assert_eq!(m(search, "search://items?q=%ZZ"), NO);
        assert_eq!(m(search, "search://items?q=a#f"), NO);
        let paged = "notes://{day}{?page}";
        assert_eq!(m(paged, "notes://d?page=2"), "day=d, page=2");
        assert_eq!(m(paged, "notes://d"), "day=d");
    }

    #[test]
    fn ambiguous_splits_are_deterministic() {
        assert_eq!(m("{a}-{b}", "x-y-z"), "a=x, b=y-z");
        let path = m("f://{path*}.{ext}", "f://a/b.c.txt");
        assert_eq!(path, "path=a/b.c, ext=txt");
        // The nearest `.txt` leaves `-z.txt` unmatched, so the next occurrence is tried.
        assert_eq!(m("{a}-{b}.txt", "x-y.txt-z.txt"), "a=x, b=y.txt-z");
        // `a = x` leaves `b = 41%y`, a bad escape, so `a` backtracks to the next `%`.
        assert_eq!(m("{a}%{b}", "x%41%y"), "a=xA, b=y");
    }

    #[test]
    fn backtracking_is_bounded() {
        let uri = "x-".repeat(400);
        assert_eq!(t("{a}-{b}-{c}-{d}-{e}!").matches(&uri), None);
        assert_eq!(t("{a*}-{b*}-{c*}-{d*}!").matches(&uri), None);
    }

    #[test]
    fn a_match_gives_up_after_its_budget_of_candidates() {
        // Found by the fuzzer: three variables over a URI of `;` try every pair of splits (the
        // last variable wants a `c` that never comes), quadratic in the URI's length.
        let template = t("{k};{+pk};{9}c");
        let mut budget = MAX_MATCH_CANDIDATES;
        let uri = ";".repeat(MAX_MATCHED_URI_LENGTH);
        assert_eq!(template.match_within(&uri, &mut budget), None);
        assert_eq!(budget, 0);
        // The same shape, short, is decided well within the budget.
        let short = format!("a;{};bc", ";".repeat(100));
        let mut budget = MAX_MATCH_CANDIDATES;
        let found = template.match_within(&short, &mut budget).unwrap();
        assert_eq!(found.get("pk"), Some(";".repeat(100).as_str()));
        assert_eq!(found.get("9"), Some("b"));
        assert!(budget > MAX_MATCH_CANDIDATES - 1000, "{budget}");
        assert_eq!(template.match_within(&short, &mut 1), None);
    }

    #[test]
    fn parse_errors() {
        // Each message quotes its template between the first two backticks.
        let messages = [
            "invalid URI template `x{`: unclosed `{` at byte 1",
            "invalid URI template `x}`: unmatched `}` at byte 1",
            "invalid URI template `{}`: empty variable name at byte 1",
            "invalid URI template `{a,b}`: more than one variable in a non-query expression at byte 2",
            "invalid URI template `{#a}`: unsupported operator `#` at byte 1",
            "invalid URI template `{a}{b}`: adjacent expressions with no literal text between them at byte 3",
            "invalid URI template `{?q}/tail`: a query expression must end the template, found more text at byte 4",
            "invalid URI template `{a}/{a}`: duplicate variable `a` at byte 5",
            "invalid URI template `{a{b}}`: nested `{` at byte 2",
            "invalid URI template `{a-b}`: invalid character `-` in variable name at byte 2",
            "invalid URI template `{?a*}`: explode modifier `*` in a query expression at byte 3",
        ];
        for message in messages {
            let template = message.split('`').nth(1).unwrap_or_default();
            let error = UriTemplate::parse(template).err().map(|e| e.to_string());
            assert_eq!(error.as_deref(), Some(message));
        }
        for template in [
            "{.x}", "{/x}", "{;x}", "{&x}", "{x:3}", "{?a,a}", "{?a}{?b}",
        ] {
            assert!(UriTemplate::parse(template).is_err(), "{template}");
        }
    }

    #[test]
    fn literal_templates_and_accessors() {
        let readme: UriTemplate = "file:///readme".parse().unwrap_or_else(|e| panic!("{e}"));
        assert!(readme.is_literal());
        assert_eq!(readme.matches("file:///readme"), Some(UriMatch::default()));
        for uri in ["file:///readme2", "file:///readm", "file:///readme?x", ""] {
            assert_eq!(readme.matches(uri), None, "{uri}");
        }
        let source = "search://{kind}/{path*}{?q,limit}";
        let search = t(source);
        assert!(!search.is_literal());
        let variables: Vec<_> = search.variables().collect();
        assert_eq!(variables, ["kind", "path", "q", "limit"]);
        assert_eq!(
            (search.as_str(), search.to_string()),
            (source, source.into())
        );
        let found = search.matches("search://a/b/c?limit=1").unwrap_or_default();
        let got = (found.len(), found.get("path"), found.get("q"));
        assert_eq!(got, (3, Some("b/c"), None));
        assert!(t("{?q}").matches("").is_some_and(|found| found.is_empty()));
    }

    #[test]
    fn expand_round_trips() {
        let cases: &[(&str, &[(&str, &str)])] = &[
            ("notes://{day}/summary", &[("day", "a b/c?d#e%f+g&h=é")]),
            ("user://{id}", &[("id", "café ☕")]),
            ("file:///{path*}", &[("path", "sp ace/ü/x?y#z%25.rs")]),
            ("file:///{+path}", &[("path", "a/b:c@d;e=f,g%20h")]),
            ("s://i{?q,limit}", &[("q", "red & /?=+ é"), ("limit", "5")]),
            ("s://i{?q,limit}", &[("limit", "")]),
            ("s://i{?q,limit}", &[]),
            (
                "x://{a}-{b*}/{+c}{?d}",
                &[("a", "1 2"), ("b", "3/4"), ("c", "5")],
            ),
        ];
        for &(template, values) in cases {
            let template = t(template);
            let uri = template.expand(values).unwrap_or_else(|e| panic!("{e}"));
            let found = template.matches(&uri).unwrap_or_default();
            let value = |v: &str| values.iter().find(|(n, _)| *n == v).copied();
            let expected: Vec<_> = template.variables().filter_map(value).collect();
            assert_eq!(found.iter().collect::<Vec<_>>(), expected, "{uri}");
        }
        let expand = |template, values| t(template).expand(values).map_err(|e| e.to_string());
        let reserved = expand("file:///{+path}", &[("path", "a b?c")]);
        assert_eq!(reserved.as_deref(), Ok("file:///a%20b%3Fc"));
        assert_eq!(expand("{a}", &[("a", "é/")]).as_deref(), Ok("%C3%A9%2F"));
        let missing = "cannot expand URI template `u://{id}`: missing value for variable `id`";
        assert_eq!(expand("u://{id}", &[]), Err(missing.into()));
        assert!(expand("u://{id}", &[("id", "")]).is_err());
        assert!(expand("u://{id}", &[("id", "1"), ("other", "2")]).is_err());
    }

    #[test]
    fn random_input_never_panics() {
        const ALPHABET: &[u8] = b"a/{}?=&%+*,#";
        let fixed = ["{a}", "a/{b}/{c*}{?a2,b2}", "{+x}={y}", "{a}%{b*}&{c}"];
        let fixed = fixed.map(t);
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move || {
            state = state.wrapping_mul(6_364_136_223_846_793_005);
            state = state.wrapping_add(1_442_695_040_888_963_407);
            usize::try_from(state >> 33).unwrap_or(0)
        };
        for _ in 0..2000 {
            let len = next() % 16;
            let mut pick = || char::from(ALPHABET[next() % ALPHABET.len()]);
            let input: String = (0..len).map(|_| pick()).collect();
            if let Ok(parsed) = UriTemplate::parse(&input) {
                let _ = (parsed.matches(&input), parsed.matches("a/a?a=%2&a"));
                let _ = parsed.expand(&[("a", "%/?")]);
            }
            for template in &fixed {
                let _ = template.matches(&input);
            }
        }
    }
}
