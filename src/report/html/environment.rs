//! The Environment section: the machine and the target as the run captured
//! them, "unknown" where it could not tell.

use super::{UNKNOWN, fact, opt_or_unknown, text_or_unknown};
use std::fmt::Write as _;

use crate::model::environment::Environment;
use crate::model::rank_environments::rank_differences;
use crate::model::result::RunResult;
use crate::model::units::Size;
use crate::report::environment_text::further_facts;
use crate::report::web::esc;

pub(super) fn environment_section(h: &mut String, env: &Environment) {
    h.push_str("<section id=\"environment\">\n<h2>Environment</h2>\n<table class=\"facts\">\n");
    fact(h, "Host", &text_or_unknown(&env.hostname));
    fact(h, "Kernel", &text_or_unknown(&env.kernel));
    let cpu = match (env.cpu_model.trim().is_empty(), env.cpu_count) {
        (true, 0) => UNKNOWN.to_string(),
        (true, n) => format!("{n} logical CPUs, model {UNKNOWN}"),
        (false, 0) => esc(&env.cpu_model),
        (false, n) => format!("{} ({n} logical CPUs)", esc(&env.cpu_model)),
    };
    fact(h, "CPU", &cpu);
    let caches = if env.cpu_caches.is_empty() {
        UNKNOWN.to_string()
    } else {
        let list = env.cpu_cache_list();
        let llc = env
            .last_level_cache_bytes()
            .map(|b| format!(" (last level: {})", Size(b)))
            .unwrap_or_default();
        esc(&format!("{list}{llc}"))
    };
    fact(h, "CPU caches", &caches);
    fact(
        h,
        "Memory",
        &if env.memory_bytes == 0 {
            UNKNOWN.to_string()
        } else {
            esc(&Size(env.memory_bytes).to_string())
        },
    );
    let t = &env.target;
    fact(h, "Test file", &text_or_unknown(&t.path));
    fact(h, "Mount point", &text_or_unknown(&t.mount_point));
    fact(h, "File system", &text_or_unknown(&t.file_system_words()));
    fact(h, "Mount options", &text_or_unknown(&t.mount_options));
    fact(h, "Mount source", &text_or_unknown(&t.source));
    let dev = t.device.as_ref();
    // As every view says it (model::env_facts): "none" for a target with
    // no block device (tmpfs, a network file system), unknown only when
    // one should be there and was not found.
    let device = env.facts().into_iter().find(|f| f.name == "device");
    let no_device = dev.is_none() && device.as_ref().is_some_and(|f| f.value.is_some());
    let of_device = |v: Option<&str>| {
        if no_device {
            "none".to_string()
        } else {
            opt_or_unknown(v)
        }
    };
    fact(
        h,
        "Device",
        &opt_or_unknown(device.and_then(|f| f.value).as_deref()),
    );
    fact(h, "Model", &of_device(dev.and_then(|d| d.model.as_deref())));
    // A virtual disk's flag is the hypervisor's default, not the medium's:
    // the report repeats what the kernel says and says so.
    fact(
        h,
        "Rotational",
        &of_device(dev.and_then(|d| d.rotational_words()).as_deref()),
    );
    if let Some(driver) = dev.and_then(|d| d.driver.as_deref()) {
        fact(h, "Driver", &esc(driver));
    }
    fact(
        h,
        "I/O scheduler",
        &of_device(dev.and_then(|d| d.scheduler.as_deref())),
    );
    // Everything else the run recorded, under its group's heading, folded:
    // dozens of settings (every mitigation the kernel lists) would push the
    // results a screen down.
    let further = further_facts(env);
    let _ = writeln!(
        h,
        "</table>\n<details class=\"more-facts\"><summary>Every other setting the run recorded ({} of them: \
         page cache, virtualisation, mitigations, device queue, network)</summary>\n<table class=\"facts\">",
        further.len()
    );
    let mut group = None;
    for f in further {
        if group != Some(f.group) {
            group = Some(f.group);
            let _ = writeln!(
                h,
                "<tr><th colspan=\"2\" class=\"facts-group\">{}</th></tr>",
                esc(f.group.title())
            );
        }
        fact(h, &f.name, &opt_or_unknown(f.value.as_deref()));
    }
    h.push_str("</table>\n</details>\n</section>\n");
}

/// Cluster mode: the settings in which ranks' environments differ from
/// rank 0's (whose environment the section above shows), a row each.
pub(super) fn rank_differences_section(h: &mut String, result: &RunResult) {
    let groups = rank_differences(result);
    if groups.is_empty() {
        return;
    }
    h.push_str(
        "<section id=\"rank-environments\">\n<h2>Where the ranks' environments differ</h2>\n\
         <p>Each rank recorded its own machine and target; these settings differ from rank \
         0's, whose environment is shown above.</p>\n<table class=\"facts\">\n\
         <tr><th>Ranks</th><th>Setting</th><th>Rank 0</th><th>Theirs</th></tr>\n",
    );
    for g in &groups {
        for d in &g.differences {
            let _ = writeln!(
                h,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&g.who()),
                esc(&d.name),
                opt_or_unknown(d.old.as_deref()),
                opt_or_unknown(d.new.as_deref())
            );
        }
    }
    h.push_str("</table>\n</section>\n");
}
