//! sysfs attributes: one value per file, ending in a newline the kernel adds.

use std::fs;
use std::path::Path;

/// The attribute at `path`, trimmed; `None` when it cannot be read or is
/// empty (a device without a model, a queue without a scheduler).
pub fn read_attr(path: impl AsRef<Path>) -> Option<String> {
    let text = fs::read_to_string(path).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_attribute_is_trimmed_and_an_empty_or_missing_one_is_none() {
        let dir = tempfile::tempdir().unwrap();
        let attr = |text: &str| {
            let p = dir.path().join("attr");
            fs::write(&p, text).unwrap();
            read_attr(&p)
        };
        assert_eq!(
            attr("Samsung SSD 870   \n").as_deref(),
            Some("Samsung SSD 870")
        );
        assert_eq!(attr("0\n").as_deref(), Some("0"));
        assert_eq!(attr(" \n"), None);
        assert_eq!(attr(""), None);
        assert_eq!(read_attr(dir.path().join("absent")), None);
    }
}
