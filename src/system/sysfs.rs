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

/// The number of entries in a sysfs list (CPUs, NUMA nodes) such as "0-3,6,8-9".
pub fn parse_cpu_list_count(list: &str) -> Option<u32> {
    let list = list.trim();
    if list.is_empty() {
        return None;
    }
    let mut n: u32 = 0;
    for part in list.split(',') {
        let count = match part.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (a.trim().parse::<u32>().ok()?, b.trim().parse::<u32>().ok()?);
                b.checked_sub(a)?.checked_add(1)?
            }
            None => {
                part.trim().parse::<u32>().ok()?;
                1
            }
        };
        n = n.checked_add(count)?;
    }
    Some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists_are_counted() {
        assert_eq!(parse_cpu_list_count("0-7\n"), Some(8));
        assert_eq!(parse_cpu_list_count("0"), Some(1));
        assert_eq!(parse_cpu_list_count("0-3,6,8-9"), Some(7));
        assert_eq!(parse_cpu_list_count(""), None);
        assert_eq!(parse_cpu_list_count("3-1"), None);
        assert_eq!(parse_cpu_list_count("x"), None);
    }

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
