//! fio's real files (tests/fixtures/peers, made by fio 3.33) read, each
//! figure checked against one computed here from the file's own JSON.

use serde_json::Value;

use super::*;
use crate::model::histogram::{LatencyHistogram, bucket_bounds, bucket_of};
use crate::model::recorded as rec;

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/peers/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The file's JSON, past any text fio wrote before it.
fn raw(text: &str) -> Value {
    serde_json::from_str(&text[text.find("\n{").map_or(0, |i| i + 1)..]).unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

#[test]
fn a_random_read_job_is_a_random_read_cell_in_kb_of_1024_bytes() {
    let text = fixture("fio-randread.json");
    let run = parse_json(&text).unwrap();
    let doc = raw(&text);
    let read = &doc["jobs"][0]["read"];
    assert_eq!(run.version.as_deref(), Some("3.33"));
    assert_eq!(
        run.date.as_deref(),
        Some(dates::from_epoch(1796159743).as_str())
    );
    assert_eq!(run.results.len(), 1);
    let r = &run.results[0];
    assert_eq!(r.test, PeerTest::Pass(Pass::RandomRead));
    assert_eq!(
        (r.workers, r.file_bytes, r.record_bytes),
        (None, 64 << 20, 4096)
    );
    // io_bytes over runtime (ms), in KiB/s: fio's bw is it truncated.
    let io = read["io_bytes"].as_u64().unwrap() as f64;
    let ms = read["runtime"].as_u64().unwrap() as f64;
    let kb = r.samples[0].kb_per_sec.unwrap();
    assert!(close(kb, io / 1024.0 / (ms / 1000.0)), "{kb}");
    assert_eq!(kb.floor() as u64, read["bw"].as_u64().unwrap());
    let ops = r.samples[0].ops_per_sec.unwrap();
    assert!(close(
        ops,
        read["total_ios"].as_f64().unwrap() / (ms / 1000.0)
    ));
    assert!((ops - read["iops"].as_f64().unwrap()).abs() < 0.01);
    let lat = r.latency.as_ref().unwrap();
    assert_eq!(lat.count, 24116);
    assert_eq!((lat.at(50.0), lat.at(99.0)), (Some(1688), Some(733184)));
    let s = &r.recorded.settings;
    assert_eq!(
        s[rec::CACHE_DROPPED],
        "yes (fio's invalidate=1, its default)"
    );
    assert_eq!(
        (s[rec::ENGINE].as_str(), s[rec::DEPTH].as_str()),
        ("psync", "1")
    );
    assert_eq!(s[rec::DIRECT], "no");
    // 96464 KiB read from a 64 MiB file in 2 s: time-based.
    assert!(s[rec::ENDS].contains("time-based"), "{}", s[rec::ENDS]);
    let spread = r.recorded.spread.unwrap();
    assert_eq!(
        (spread.samples, spread.min, spread.max),
        (4, 14760.0, 144552.0)
    );
    let cost = r.recorded.cost.unwrap();
    let cpu = (2.221125 + 19.743337) / 100.0 * 2026.0 * 1e6 / 24116.0;
    assert!(close(cost.cpu_ns_per_op.unwrap(), cpu));
    assert!(close(cost.switches_per_op.unwrap(), 7699.0 / 24116.0));
    assert!(run.command.as_deref().unwrap().contains("--rw=randread"));
    assert!(
        run.kept
            .iter()
            .any(|k| k.of == "disk vda" && k.value.contains("util 48.902196"))
    );
    assert!(run.defects.is_empty());
}

#[test]
fn json_plus_bins_land_in_ioz_s_buckets_one_for_one() {
    let text = fixture("fio-write.jsonplus");
    let doc = raw(&text);
    let bins = doc["jobs"][0]["write"]["clat_ns"]["bins"]
        .as_object()
        .unwrap();
    let mut indexes = std::collections::BTreeSet::new();
    for key in bins.keys() {
        let value: u64 = key.parse().unwrap();
        let (low, high) = bucket_bounds(bucket_of(value));
        assert!(
            (low..=high).contains(&value),
            "{value} outside {low}..={high}"
        );
        // fio names a bin by the middle of its range: with 64 bins per
        // power of two its range is ioz's bucket exactly.
        if value >= 128 {
            let width = high + 1 - low;
            assert_eq!(value, low + width / 2, "bin {value}");
            let exponent = 63 - value.leading_zeros();
            assert_eq!(
                width,
                1 << (exponent - 6),
                "bin {value}: 64 per power of two"
            );
        }
        assert!(indexes.insert(bucket_of(value)), "two bins in one bucket");
    }
    let run = parse_json(&text).unwrap();
    let lat = run.results[0].latency.as_ref().unwrap();
    let total: u64 = lat.buckets.iter().map(|b| b.count).sum();
    assert_eq!(total, 1024);
    assert_eq!(lat.buckets.len(), bins.len());
}

/// fio's p99 against ioz's, recomputed from the bins alone: within half a
/// bin of fio's (its own error: it reports a bin's middle).
fn p99_within_the_bin(name: &str, dir: &str, job: usize) {
    let text = fixture(name);
    let doc = raw(&text);
    let clat = &doc["jobs"][job][dir]["clat_ns"];
    let fio_p99 = clat["percentile"]["99.000000"].as_u64().unwrap();
    // The reader's own conversion of the bins into ioz's buckets.
    let mut summary = latency(&Field::root(clat, WHAT)).unwrap().unwrap();
    // From the buckets alone: not fio's printed percentiles.
    summary.percentiles.clear();
    let ours = LatencyHistogram::from_summary(&summary)
        .percentile(99.0)
        .unwrap();
    let (low, high) = bucket_bounds(bucket_of(fio_p99));
    let half = (high + 1 - low) / 2;
    assert!(
        ours.abs_diff(fio_p99) <= half.max(1),
        "{name}: ioz's p99 {ours} ns, fio's {fio_p99} ns, half a bin {half} ns"
    );
    // Independently: the bin at rank ⌈0.99·N⌉ of the sorted bins is fio's p99.
    let mut bins: Vec<(u64, u64)> = clat["bins"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.parse().unwrap(), v.as_u64().unwrap()))
        .collect();
    bins.sort();
    let rank = (0.99 * clat["N"].as_f64().unwrap()).ceil() as u64;
    let mut seen = 0;
    let at_rank = bins
        .iter()
        .find(|(_, c)| {
            seen += c;
            seen >= rank
        })
        .unwrap()
        .0;
    assert_eq!(
        at_rank, fio_p99,
        "{name}: fio's p99 is its bin at rank {rank}"
    );
}

#[test]
fn a_p99_recomputed_from_the_bins_is_within_fio_s_bin_error() {
    p99_within_the_bin("fio-write.jsonplus", "write", 0);
    p99_within_the_bin("fio-two-jobs.jsonplus", "read", 0);
}

#[test]
fn two_jobs_text_before_the_json_and_a_failed_job() {
    let text = fixture("fio-two-jobs.jsonplus");
    let run = parse_json(&text).unwrap();
    let doc = raw(&text);
    assert_eq!(run.defects.len(), 1, "{:?}", run.defects);
    assert!(
        run.defects[0].starts_with("fio wrote 2 line(s) of text outside its JSON")
            && run.defects[0].contains("line 1 \"b: you need to specify size=\""),
        "{}",
        run.defects[0]
    );
    // Job a is randrw: the random mix, both directions together.
    assert_eq!(run.results.len(), 1);
    let mix = &run.results[0];
    assert_eq!(mix.test, PeerTest::Pass(Pass::RandomMix));
    let a = &doc["jobs"][0];
    let bytes = a["read"]["io_bytes"].as_f64().unwrap() + a["write"]["io_bytes"].as_f64().unwrap();
    let ms = a["read"]["runtime"]
        .as_f64()
        .unwrap()
        .max(a["write"]["runtime"].as_f64().unwrap());
    assert!(close(
        mix.samples[0].kb_per_sec.unwrap(),
        bytes / 1024.0 / (ms / 1000.0)
    ));
    assert_eq!(mix.recorded.settings[rec::READ_SHARE], "70 %");
    // Its latency: both directions' bins merged.
    let n =
        a["read"]["clat_ns"]["N"].as_u64().unwrap() + a["write"]["clat_ns"]["N"].as_u64().unwrap();
    assert_eq!(mix.latency.as_ref().unwrap().count, n);
    // Each direction's own rate kept; job b's error kept, not compared.
    assert!(run.kept.iter().any(|k| k.of == "job a"
        && k.name == "read share of the mix"
        && k.value.starts_with("20859 KiB/s")));
    assert!(
        run.kept
            .iter()
            .any(|k| k.of == "job b" && k.name == "error" && k.value.starts_with("22:"))
    );
}

#[test]
fn numjobs_with_group_reporting_is_one_measurement_of_its_workers() {
    let text = fixture("fio-numjobs2-group.jsonplus");
    let run = parse_json(&text).unwrap();
    let r = &run.results[0];
    assert_eq!(
        (r.test, r.workers),
        (PeerTest::Pass(Pass::RandomMix), Some(2))
    );
    assert_eq!((r.file_bytes, r.record_bytes), (32 << 20, 16 << 10));
    assert!(r.recorded.settings[rec::RATE_OF_WORKERS].contains("group_reporting"));
    assert_eq!(r.recorded.settings[rec::SHARED_FILE], "yes");
}

#[test]
fn numjobs_without_group_reporting_sums_the_jobs_rates() {
    // fio-randread.json's job twice, as numjobs=2 without group_reporting
    // reports it: one entry per job, of one name.
    let text = fixture("fio-randread.json");
    let mut doc = raw(&text);
    let mut second = doc["jobs"][0].clone();
    second["read"]["io_bytes"] = Value::from(49389568u64);
    second["read"]["total_ios"] = Value::from(12058u64);
    second["read"]["runtime"] = Value::from(2030u64);
    second["read"]["bw"] = Value::from(23760u64);
    doc["jobs"].as_array_mut().unwrap().push(second);
    let run = parse_json(&serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    assert_eq!(run.results.len(), 1);
    let r = &run.results[0];
    assert_eq!(r.workers, Some(2));
    let kb = 98779136.0 / 1024.0 / 2.027 + 49389568.0 / 1024.0 / 2.030;
    assert!(close(r.samples[0].kb_per_sec.unwrap(), kb));
    assert_eq!(
        r.recorded.settings[rec::RATE_OF_WORKERS],
        "sum of each worker's rate"
    );
    assert_eq!(
        r.printed,
        format!("{} KiB/s (the sum of 2 jobs' bw)", 47589 + 23760)
    );
}

#[test]
fn an_o_direct_io_uring_job_says_so() {
    let run = parse_json(&fixture("fio-uring-qd16.json")).unwrap();
    let s = &run.results[0].recorded.settings;
    assert_eq!(
        (
            s[rec::ENGINE].as_str(),
            s[rec::DEPTH].as_str(),
            s[rec::DIRECT].as_str()
        ),
        ("io_uring", "16", "yes")
    );
    assert!(!s.contains_key(rec::CACHE_DROPPED), "moot with O_DIRECT");
}

#[test]
fn a_client_server_run_is_its_all_clients_sum() {
    let text = fixture("handmade/fio-client-server.json");
    let doc = raw(&text);
    let run = parse_json(&text).unwrap();
    assert_eq!(run.host.as_deref(), Some("node-a, node-b"));
    assert_eq!(run.results.len(), 1);
    let r = &run.results[0];
    assert_eq!(r.workers, Some(2));
    let all = &doc["client_stats"][2]["read"];
    let kb =
        all["io_bytes"].as_f64().unwrap() / 1024.0 / (all["runtime"].as_f64().unwrap() / 1000.0);
    assert!(close(r.samples[0].kb_per_sec.unwrap(), kb));
    assert!(
        run.kept
            .iter()
            .any(|k| k.of.starts_with("client node-a") && k.value == "47589 KiB/s")
    );
    assert!(
        run.kept
            .iter()
            .any(|k| k.of.starts_with("client node-b") && k.value == "42745 KiB/s")
    );
}

#[test]
fn a_status_interval_stream_is_read_to_its_end_and_gives_a_series() {
    let stream = parse_json(&fixture("handmade/fio-status-interval.json")).unwrap();
    let last = parse_json(&fixture("fio-randread.json")).unwrap();
    assert_eq!(stream.results[0].samples, last.results[0].samples);
    assert!(
        stream
            .defects
            .iter()
            .any(|d| d.contains("collated 3 reports")),
        "{:?}",
        stream.defects
    );
    let series = &stream.results[0].series;
    assert_eq!(series.len(), 3);
    assert_eq!(series.iter().map(|i| i.bytes).sum::<u64>(), 98779136);
    assert_eq!(series.last().unwrap().end_ns(), 2027 * 1_000_000);
}

#[test]
fn a_broken_file_is_named_by_line_and_column_or_field() {
    let text = fixture("fio-randread.json");
    let cut = &text[..text.find("\"trim\"").unwrap()];
    let e = parse_json(cut).unwrap_err();
    assert!(matches!(e, PeerError::Json { .. }), "{e}");
    assert!(
        e.to_string()
            .starts_with("fio's JSON output breaks at line"),
        "{e}"
    );
    let bad = text.replacen("\"runtime\" : 2027", "\"runtime\" : \"soon\"", 1);
    let e = parse_json(&bad).unwrap_err();
    assert_eq!(
        e.to_string(),
        "fio's JSON output: jobs[0].read.runtime: expected a whole number, 0 or more, found \"soon\""
    );
    let nan = text.replacen("\"iops\" : 11897.385298", "\"iops\" : 1e999", 1);
    assert!(parse_json(&nan).is_err());
}
