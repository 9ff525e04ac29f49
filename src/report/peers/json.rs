//! What the JSON readers share: a value's fields taken by name, a refusal
//! naming the field's whole path (`jobs[1].read.runtime`); and JSON with a
//! tool's text around or inside it, read past and said (fio prints its
//! errors before the JSON, and collates one document per
//! `--status-interval`; IOR with `-v` prints progress lines among its
//! JSON, hpc/ior#503).

use serde_json::Value;

use super::{PeerError, usable};

/// A value and where it is in the document.
#[derive(Clone, Copy)]
pub(super) struct At<'a> {
    pub value: &'a Value,
    what: &'static str,
    path: &'a str,
}

/// A path built as the reader walks (owned: each step appends).
#[derive(Debug)]
pub(super) struct Field<'a> {
    pub value: &'a Value,
    pub what: &'static str,
    pub path: String,
}

impl<'a> Field<'a> {
    pub fn root(value: &'a Value, what: &'static str) -> Field<'a> {
        Field {
            value,
            what,
            path: String::new(),
        }
    }

    fn at(&self) -> At<'_> {
        At {
            value: self.value,
            what: self.what,
            path: &self.path,
        }
    }

    fn child(&self, step: String, value: &'a Value) -> Field<'a> {
        let path = if self.path.is_empty() || step.starts_with('[') {
            format!("{}{step}", self.path)
        } else {
            format!("{}.{step}", self.path)
        };
        Field {
            value,
            what: self.what,
            path,
        }
    }

    /// The field `key`, if the object has it.
    pub fn get(&self, key: &str) -> Option<Field<'a>> {
        self.value.get(key).map(|v| self.child(key.to_string(), v))
    }

    /// The field `key`, which must be there.
    pub fn req(&self, key: &str) -> Result<Field<'a>, PeerError> {
        self.get(key).ok_or_else(|| {
            self.at().fail(format!(
                "no field \"{key}\"{}",
                if self.path.is_empty() {
                    String::new()
                } else {
                    format!(" in {}", self.path)
                }
            ))
        })
    }

    /// The elements of an array (each with its index in the path).
    pub fn items(&self) -> Result<Vec<Field<'a>>, PeerError> {
        let list = self
            .value
            .as_array()
            .ok_or_else(|| self.at().bad("a list"))?;
        Ok(list
            .iter()
            .enumerate()
            .map(|(i, v)| self.child(format!("[{i}]"), v))
            .collect())
    }

    /// A number (fio writes some as strings, "0.000000": those too).
    pub fn f64(&self) -> Result<f64, PeerError> {
        let v = match self.value {
            Value::Number(n) => n.as_f64(),
            Value::String(s) => s.trim().parse::<f64>().ok(),
            _ => None,
        }
        .ok_or_else(|| self.at().bad("a number"))?;
        usable(v).map_err(|why| self.at().fail(why))
    }

    /// A whole number, 0 or more.
    pub fn u64(&self) -> Result<u64, PeerError> {
        match self.value {
            Value::Number(n) => n.as_u64(),
            Value::String(s) => s.trim().parse::<u64>().ok(),
            _ => None,
        }
        .ok_or_else(|| self.at().bad("a whole number, 0 or more"))
    }

    /// An integer of either sign (fio's `error`).
    pub fn i64(&self) -> Result<i64, PeerError> {
        self.value
            .as_i64()
            .ok_or_else(|| self.at().bad("a whole number"))
    }

    pub fn str(&self) -> Result<&'a str, PeerError> {
        self.value.as_str().ok_or_else(|| self.at().bad("text"))
    }

    /// The string values of an object of strings (fio's options), in order.
    pub fn strings(&self) -> Result<Vec<(String, String)>, PeerError> {
        let map = self
            .value
            .as_object()
            .ok_or_else(|| self.at().bad("an object"))?;
        Ok(map
            .iter()
            .map(|(k, v)| {
                let v = match v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                (k.clone(), v)
            })
            .collect())
    }
}

impl At<'_> {
    fn fail(&self, why: String) -> PeerError {
        PeerError::Field {
            what: self.what,
            field: if self.path.is_empty() {
                "the document".into()
            } else {
                self.path.to_string()
            },
            why,
        }
    }

    fn bad(&self, expected: &str) -> PeerError {
        let mut found = self.value.to_string();
        if found.len() > 40 {
            found.truncate(40);
            found.push('…');
        }
        self.fail(format!("expected {expected}, found {found}"))
    }
}

/// A line of text a tool wrote outside its JSON: its number (from 1) and text.
pub(super) type Stray = (usize, String);

/// The JSON documents in `text`, one after another, with the lines of text
/// before, between and after them; a document that breaks is refused with
/// its line and column in the whole file.
pub(super) fn documents(
    text: &str,
    what: &'static str,
) -> Result<(Vec<Value>, Vec<Stray>), PeerError> {
    let mut values = Vec::new();
    let mut stray = Vec::new();
    let mut at = 0;
    while at < text.len() {
        let rest = &text[at..];
        let trimmed = rest.trim_start();
        if trimmed.is_empty() {
            break;
        }
        at += rest.len() - trimmed.len();
        if trimmed.starts_with('{') {
            let mut stream = serde_json::Deserializer::from_str(trimmed).into_iter::<Value>();
            match stream.next() {
                Some(Ok(v)) => {
                    values.push(v);
                    at += stream.byte_offset();
                }
                Some(Err(e)) => return Err(broken(text, at, &e, what)),
                None => break,
            }
        } else {
            let end = trimmed.find('\n').map_or(trimmed.len(), |i| i + 1);
            stray.push((line_of(text, at), trimmed[..end].trim_end().to_string()));
            at += end;
        }
    }
    Ok((values, stray))
}

/// One JSON document in `text` with any line that cannot be JSON (one that
/// starts with a letter, outside a string) left out, and those lines.
pub(super) fn without_text_lines(
    text: &str,
    what: &'static str,
) -> Result<(Value, Vec<Stray>), PeerError> {
    match serde_json::from_str::<Value>(text) {
        Ok(v) => return Ok((v, Vec::new())),
        Err(e) if !e.is_syntax() && !e.is_eof() => return Err(broken(text, 0, &e, what)),
        Err(_) => {}
    }
    let mut kept = String::with_capacity(text.len());
    // Which line of the file each kept line is.
    let mut origin = Vec::new();
    let mut stray = Vec::new();
    for (n, line) in text.split_inclusive('\n').enumerate() {
        let head = line.trim_start();
        let words = head.starts_with(|c: char| c.is_ascii_alphabetic())
            && !["true", "false", "null"]
                .iter()
                .any(|w| head.starts_with(w));
        if words {
            stray.push((n + 1, line.trim_end().to_string()));
        } else {
            kept.push_str(line);
            origin.push(n + 1);
        }
    }
    match serde_json::from_str::<Value>(&kept) {
        Ok(v) => Ok((v, stray)),
        Err(e) => {
            let line = origin.get(e.line().saturating_sub(1)).copied().unwrap_or(0);
            Err(PeerError::Json {
                what,
                line,
                column: e.column(),
                why: plain(&e),
            })
        }
    }
}

/// A JSON error at byte `offset` of `text` (where the document began) as
/// the whole file's line and column.
fn broken(text: &str, offset: usize, e: &serde_json::Error, what: &'static str) -> PeerError {
    let first = line_of(text, offset);
    let line = first + e.line().saturating_sub(1);
    let column = if e.line() <= 1 {
        let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
        offset - start + e.column()
    } else {
        e.column()
    };
    PeerError::Json {
        what,
        line,
        column,
        why: plain(e),
    }
}

/// serde's message without its own " at line L column C".
fn plain(e: &serde_json::Error) -> String {
    let s = e.to_string();
    match s.rfind(" at line ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// The line (from 1) byte `offset` of `text` is on.
pub(super) fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_and_the_text_around_them_are_told_apart() {
        let text = "fio: one\n{\"a\": 1}\nwarning: two\n{\"a\": 2}\n";
        let (values, stray) = documents(text, "x").unwrap();
        assert_eq!(values.len(), 2);
        assert_eq!(values[1]["a"], 2);
        assert_eq!(
            stray,
            [(1, "fio: one".to_string()), (3, "warning: two".to_string())]
        );
    }

    #[test]
    fn a_broken_document_is_named_by_its_line_and_column_in_the_file() {
        let text = "noise\n{\n  \"a\": 1,\n  \"b\" 2\n}\n";
        let e = documents(text, "fio's JSON output").unwrap_err();
        let PeerError::Json { line, column, .. } = &e else {
            panic!("{e}")
        };
        assert_eq!((*line, *column), (4, 7), "{e}");
        assert!(
            e.to_string()
                .starts_with("fio's JSON output breaks at line 4, column 7: expected `:`"),
            "{e}"
        );
    }

    #[test]
    fn text_lines_inside_json_are_left_out_and_counted() {
        let text = "BANNER\n{\n\"a\": [\n progress line\n 1]\n}\n";
        let (v, stray) = without_text_lines(text, "x").unwrap();
        assert_eq!(v["a"][0], 1);
        assert_eq!(stray.iter().map(|s| s.0).collect::<Vec<_>>(), [1, 4]);
        // A value left out with its line: the error is where JSON resumes.
        let e = without_text_lines("{\n\"a\": \n tru\n}", "IOR's JSON").unwrap_err();
        assert!(matches!(e, PeerError::Json { line: 4, .. }), "{e}");
    }

    #[test]
    fn a_field_is_named_by_its_path() {
        let v: Value = serde_json::from_str(r#"{"jobs":[{"read":{"runtime":"x"}}]}"#).unwrap();
        let root = Field::root(&v, "fio's JSON output");
        let job = &root.req("jobs").unwrap().items().unwrap()[0];
        let e = job
            .req("read")
            .unwrap()
            .req("runtime")
            .unwrap()
            .u64()
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "fio's JSON output: jobs[0].read.runtime: expected a whole number, 0 or more, found \"x\""
        );
        let e = job.req("write").unwrap_err();
        assert_eq!(
            e.to_string(),
            "fio's JSON output: jobs[0]: no field \"write\" in jobs[0]"
        );
    }
}
