"""Each simulator's output brought to one shape (goodput, drops, queue, Jain), and medians."""

from __future__ import annotations

import statistics


def jain(xs: list[float]) -> float | None:
    s2 = sum(x * x for x in xs)
    return (sum(xs) ** 2) / (len(xs) * s2) if xs and s2 > 0 else None


def norm_bufferlab(r: dict) -> dict:
    flows = r["flows"]
    bq = next((q for q in r["queues"] if q["link"] == "bottleneck" and q["from"] == "r0"), None)
    if bq is None:
        return norm_bufferlab_fabric(r)
    gp = [f["goodput_bps"] for f in flows]
    rx = sum(f["rx_packets"] for f in flows)
    dsum = sum((f["delay_mean_s"] or 0) * f["rx_packets"] for f in flows)
    early = bq.get("early_drops", 0)
    return dict(
        goodput_bps=gp, goodput_total_bps=sum(gp), jain=jain(gp), drops=bq["drops"],
        early_drops=early, forced_drops=bq["drops"] - early, avg_queue_packets=bq["avg_packets"],
        avg_queue_bytes=bq["avg_bytes"], delay_mean_s=dsum / rx if rx else None,
        packet_hops=sum(link["tx_packets"] for link in r["links"]), events=r["events"],
        sim_wall_s=r["wall_s"],
    )


def norm_bufferlab_fabric(r: dict) -> dict:
    """A network without a dumbbell's bottleneck (the dc case): counts, the FCT summary by size
    bucket, switch marks and drops."""
    sw = r.get("switches") or []
    buckets = [{k: b.get(k) for k in ("bucket", "count", "unfinished", "fct_p50_s", "fct_p99_s",
                                       "slowdown_p50", "slowdown_p99")}
               for b in (r.get("fct") or {}).get("buckets", [])]
    every = next((b for b in buckets if b["bucket"] == "all"), {})
    return dict(
        flows=len(r["flows"]), flows_completed=every.get("count"),
        flows_unfinished=every.get("unfinished"), fct_buckets=buckets,
        delivered_bytes=sum(f["rx_bytes"] for f in r["flows"]),
        # every output queue, hosts' and switch ports' (a switch port is a `shared_buffer` queue)
        marks=sum(q.get("marks", 0) for q in r["queues"]),
        switch_marks=sum(s.get("marks", 0) for s in sw),
        switch_drops=sum(s["drops_threshold"] + s["drops_pool_full"] for s in sw),
        queue_drops=sum(q["drops"] for q in r["queues"]),
        sim_time_s=r["sim_time_s"],
        packet_hops=sum(link["tx_packets"] for link in r["links"]), events=r["events"],
        sim_wall_s=r["wall_s"],
    )


def norm_ns3(r: dict) -> dict:
    gp = [f["goodput_bps"] for f in r["flows"]]
    q = r["queue"]
    return dict(
        goodput_bps=gp, goodput_total_bps=sum(gp), jain=jain(gp), drops=q["drops"],
        early_drops=q["early_drops"], forced_drops=q["forced_drops"],
        avg_queue_packets=q["avg_packets"], avg_queue_bytes=q["avg_bytes"],
        # the 1-packet device queue below the queue disc (bufferlab's `device_queue`)
        device_avg_packets=q.get("device_avg_packets"), device_avg_bytes=q.get("device_avg_bytes"),
        delay_mean_s=r.get("delay_mean_s"), packet_hops=r["packet_hops"], events=r["events"],
        sim_wall_s=r["sim_wall_s"],
    )


def norm_ns2(r: dict) -> dict:
    gp = [f["goodput_bps"] for f in r["flows"]]
    q = r.get("queue") or {}
    return dict(
        goodput_bps=gp, goodput_total_bps=sum(gp), jain=jain(gp), drops=q.get("drops"),
        early_drops=None, forced_drops=None, avg_queue_packets=q.get("avg_packets"),
        avg_queue_bytes=q.get("avg_bytes"), delay_mean_s=None, packet_hops=r["packet_hops"],
        packet_hops_estimated=True, events=None, sim_wall_s=r["sim_wall_s"],
    )


def med(xs: list) -> float | None:
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


# ----------------------------------------------------------------------------------------------
# Running
# ----------------------------------------------------------------------------------------------
