//! schema/run.schema.json describes the file `--json` writes: real runs
//! validate against it, and documents with a field removed, mistyped or
//! misnamed do not.

use std::fs;
use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::fixtures::{IOZ, Test, trials};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        a_real_run_matches_the_schema,
        a_telemetry_run_matches_the_schema,
        every_pass_and_auto_mode_match_the_schema,
        a_throughput_run_matches_the_schema,
        broken_documents_fail_validation,
    ]
}

fn schema() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("schema/run.schema.json");
    let text = fs::read_to_string(&path).expect("schema/run.schema.json");
    serde_json::from_str(&text).expect("the schema is JSON")
}

fn validator() -> jsonschema::Validator {
    let schema = schema();
    jsonschema::meta::validate(&schema).expect("the schema is a valid draft 2020-12 schema");
    jsonschema::draft202012::new(&schema).expect("the schema compiles")
}

/// Runs ioz in a fresh directory with `--json r.json` and returns the file.
fn run_json(args: &[&str]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(IOZ)
        .args(args)
        .args(["--json", "r.json", "-f", "t.tmp"])
        .current_dir(dir.path())
        .output()
        .expect("cannot start ioz");
    assert!(
        out.status.success(),
        "ioz {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = fs::read_to_string(dir.path().join("r.json")).expect("r.json written");
    serde_json::from_str(&text).expect("r.json is JSON")
}

/// Panics, naming each breach, unless `doc` matches the schema (for other
/// modules' runs: cluster_auto's).
pub fn assert_valid(doc: &Value) {
    assert_eq!(errors(&validator(), doc), Vec::<String>::new());
}

fn errors(v: &jsonschema::Validator, doc: &Value) -> Vec<String> {
    v.iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

fn a_real_run_matches_the_schema() {
    let v = validator();
    let doc = run_json(&["-s", "64k", "-r", "16k", "-i", "0", "-i", "1", "-i", "2"]);
    assert_eq!(errors(&v, &doc), Vec::<String>::new());
    assert_eq!(doc["cells"][0]["measurements"].as_array().unwrap().len(), 6);
}

fn a_telemetry_run_matches_the_schema() {
    let v = validator();
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("w.txt"), "100 5000 1\n0 777\n").unwrap();
    let out = Command::new(IOZ)
        .args(["-X", "w.txt", "--json", "r.json", "-f", "t.tmp"])
        .current_dir(dir.path())
        .output()
        .expect("cannot start ioz");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value =
        serde_json::from_str(&fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();
    assert_eq!(errors(&v, &doc), Vec::<String>::new());
    assert_eq!(doc["config"]["telemetry"]["write"]["ops"], 2);
    assert_eq!(doc["config"]["telemetry"]["read"], Value::Null);
    // A plain run says it replayed nothing.
    let plain = run_json(&["-s", "64k", "-i", "0"]);
    assert_eq!(plain["config"]["telemetry"], Value::Null);
    assert_eq!(errors(&v, &plain), Vec::<String>::new());
}

fn every_pass_and_auto_mode_match_the_schema() {
    let v = validator();
    let mut args = vec!["-s", "64k", "-r", "16k", "-R", "-O"];
    let numbers: Vec<String> = (0..=12).map(|i| i.to_string()).collect();
    for n in &numbers {
        args.extend(["-i", n]);
    }
    let doc = run_json(&args);
    assert_eq!(errors(&v, &doc), Vec::<String>::new());
    assert_eq!(
        doc["cells"][0]["measurements"].as_array().unwrap().len(),
        22
    );
    let auto = run_json(&["-a", "-n", "64k", "-g", "128k", "-q", "64k", "-i", "0"]);
    assert_eq!(errors(&v, &auto), Vec::<String>::new());
    assert!(auto["config"]["sizes"]["auto"].is_object());
}

fn a_throughput_run_matches_the_schema() {
    let v = validator();
    let doc = run_json(&["-s", "64k", "-r", "16k", "-i", "0", "-i", "1", "-t", "2"]);
    assert_eq!(errors(&v, &doc), Vec::<String>::new());
    assert!(doc["config"]["throughput"].is_object());
}

fn broken_documents_fail_validation() {
    let v = validator();
    let good = run_json(&["-s", "64k", "-r", "16k", "-i", "0"]);
    assert!(v.is_valid(&good));

    type Break = fn(&mut Value);
    let breaks: [(&str, Break); 14] = [
        ("no schema_version", |d| {
            d.as_object_mut().unwrap().remove("schema_version");
        }),
        ("schema_version 3", |d| d["schema_version"] = json!(3)),
        ("schema_version as text", |d| {
            d["schema_version"] = json!("1")
        }),
        ("a measurement without elapsed_ns", |d| {
            d["cells"][0]["measurements"][0]
                .as_object_mut()
                .unwrap()
                .remove("elapsed_ns");
        }),
        ("bytes as text", |d| {
            d["cells"][0]["measurements"][0]["bytes"] = json!("65536")
        }),
        ("a negative elapsed_ns", |d| {
            d["cells"][0]["measurements"][0]["elapsed_ns"] = json!(-1)
        }),
        ("an unknown pass", |d| {
            d["cells"][0]["measurements"][0]["pass"] = json!("warp")
        }),
        ("the pass's display name", |d| {
            d["cells"][0]["measurements"][0]["pass"] = json!("random read")
        }),
        ("no derived kib_per_sec", |d| {
            d["cells"][0]["measurements"][0]
                .as_object_mut()
                .unwrap()
                .remove("kib_per_sec");
        }),
        ("an unknown test", |d| {
            d["config"]["tests"] = json!(["writes"])
        }),
        ("no sizes", |d| {
            d["config"].as_object_mut().unwrap().remove("sizes");
        }),
        ("an unknown status", |d| d["status"] = json!("done")),
        ("an extra top-level field", |d| d["extra"] = json!(1)),
        ("cpu_count as a float", |d| {
            d["environment"]["cpu_count"] = json!(1.5)
        }),
    ];
    for (what, break_it) in breaks {
        let mut doc = good.clone();
        break_it(&mut doc);
        assert_ne!(doc, good, "{what}: nothing changed");
        assert!(!v.is_valid(&doc), "{what}: still valid");
    }

    // The other shapes of status are accepted.
    for status in [
        json!({"interrupted": 2}),
        json!({"failed": "write t.tmp: EIO"}),
    ] {
        let mut doc = good.clone();
        doc["status"] = status;
        assert!(v.is_valid(&doc), "{doc}");
    }
}
