// bufferlab bench peer: a parameterised ns-3 dumbbell, built against the ns-3 libraries of the
// PyPI package `ns3` (see bench/peers/build_ns3.sh). Prints one JSON object on stdout.
//
//   sender_i --access--> L ==bottleneck (queue disc)==> R --access--> receiver_i
//
// N TCP flows (BulkSend, unlimited) plus optional always-on UDP flows (OnOff), flow i starting at
// i * stagger seconds, or at the i-th of --starts; each sender's access link may have its own
// delay (--accessDelays, the receivers' keep --accessDelay), for bench/validation's ensembles. The bottleneck carries the chosen root queue disc on both directions over
// a 1-packet device queue; access links have only their device queue (no queue disc).
//
// Measurements kept cheap so that the timing is the simulation's: goodput from the sinks, queue
// disc statistics, exact time-average queue from the PacketsInQueue trace, packet-hops from the
// device queues' counters (a point-to-point device enqueues every packet it sends), and, only with
// --flowmon=1, per-flow drops and one-way delay from FlowMonitor. With --trace=FILE, every change
// of each TCP flow's cwnd, ssthresh and congestion state goes to FILE, one line each:
// "time_s flow cwnd|ssthresh|state value" (bytes; the state as ns-3 names it), to set beside
// bufferlab's cwnd series (bench/cubic_trace.py). With --bnSchedule=FILE (lines "t_s rate_bps")
// the L -> R bottleneck device's DataRate is set to each rate at its time (SetDataRate: packets
// that start after the change take the new rate; the packet on the wire keeps its own), the
// reverse direction keeps --bnRate (bench/cellular_ns3.py). With --revFlows=i,j,... a bulk TCP
// flow also runs from receiver i back to sender i (the R -> L direction, e.g. a home link's
// download whose ACKs share the uplink), starting at --revStart s (bench/home_ns3.py). With
// --maxBytes=N each TCP flow sends N bytes and stops (an incast's answers, bench/incast_ns3.py);
// every flow then reports when its sink received its last byte (`last_rx_s`).

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/flow-monitor-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

// Time integral of the bottleneck queue disc length (packets and bytes).
struct QueueIntegral
{
    double lastT = 0.0;
    double pkts = 0.0;  // current
    double bytes = 0.0; // current
    double pktSec = 0.0;
    double byteSec = 0.0;
    uint32_t maxPkts = 0;

    void Advance()
    {
        double now = Simulator::Now().GetSeconds();
        pktSec += pkts * (now - lastT);
        byteSec += bytes * (now - lastT);
        lastT = now;
    }
};

QueueIntegral g_q;
QueueIntegral g_dev; // the bottleneck device's own queue (L -> R) below the queue disc

// What had accumulated at --warmup seconds, so that "after_warmup" counts only the rest.
struct WarmupSnapshot
{
    std::vector<uint64_t> rx;
    double pktSec = 0.0;
    double byteSec = 0.0;
    double devByteSec = 0.0;
    double devPktSec = 0.0;
    uint64_t arrivals = 0;
    uint64_t drops = 0;
};

WarmupSnapshot g_warm;

void
OnPackets(uint32_t, uint32_t now)
{
    g_q.Advance();
    g_q.pkts = now;
    if (now > g_q.maxPkts)
    {
        g_q.maxPkts = now;
    }
}

void
OnBytes(uint32_t, uint32_t now)
{
    g_q.Advance();
    g_q.bytes = now;
}

void
OnDevPackets(uint32_t, uint32_t now)
{
    g_dev.Advance();
    g_dev.pkts = now;
}

void
OnDevBytes(uint32_t, uint32_t now)
{
    g_dev.Advance();
    g_dev.bytes = now;
}

std::string
JsonStr(const std::string& s)
{
    std::string o = "\"";
    for (char c : s)
    {
        if (c == '"' || c == '\\')
        {
            o += '\\';
        }
        o += c;
    }
    return o + "\"";
}

// "a,b,c" -> {"a", "b", "c"}; "" -> {}.
std::vector<std::string>
SplitList(const std::string& s)
{
    std::vector<std::string> out;
    std::stringstream in(s);
    std::string item;
    while (std::getline(in, item, ','))
    {
        if (!item.empty())
        {
            out.push_back(item);
        }
    }
    return out;
}

// "20p" -> packets, "5000B" -> bytes, "bdp" -> bandwidth-delay product in packets.
QueueSize
ParseLimit(const std::string& s, DataRate bn, double baseRtt, uint32_t pktBytes, bool* bytes)
{
    if (s == "bdp")
    {
        double p = bn.GetBitRate() * baseRtt / 8.0 / pktBytes;
        *bytes = false;
        return QueueSize(QueueSizeUnit::PACKETS, std::max<uint32_t>(1, uint32_t(p + 0.5)));
    }
    char unit = s.back();
    uint32_t v = std::stoul(s.substr(0, s.size() - 1));
    *bytes = (unit == 'B');
    return QueueSize(*bytes ? QueueSizeUnit::BYTES : QueueSizeUnit::PACKETS, v);
}

// Per-TCP-flow sender counters from the socket's trace sources (only with --tcpStats=1), to set
// beside bufferlab's `tcp` section. Retransmission timeouts are counted where the RTO doubles
// (`ReTxTimeout` is the only place that doubles m_rto; the 60 s cap counts too): entries into
// CA_LOSS would miss every timeout after the first of a loss episode, since the CongState trace
// fires only on a change. Recovery-state entries are fast retransmits.
struct TcpCounters
{
    uint64_t segments = 0;       // data segments sent, retransmissions included
    uint64_t retransmits = 0;    // data segments whose sequence was sent before
    uint64_t timeouts = 0;       // RTO expiries (the RTO doubles)
    uint64_t lossEntries = 0;    // entries into CA_LOSS
    uint64_t recoveries = 0;     // entries into CA_RECOVERY
    SequenceNumber32 highTx{0};  // end of the highest data sent
    bool anyTx = false;
    double cwndSegSec = 0;       // time integral of cwnd, in segments
    double cwndLastT = 0;
    double cwndNow = 0;
    double paceBitSec = 0;       // time integral of the pacing rate (bit/s x s)
    double paceLastT = 0;
    double paceNow = 0;
    double paceMax = 0;
};

std::vector<TcpCounters> g_tcp;
uint32_t g_segSize = 1448;

void
OnTcpTx(uint32_t i, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() == 0)
    {
        return;
    }
    TcpCounters& c = g_tcp[i];
    c.segments++;
    SequenceNumber32 end = h.GetSequenceNumber() + p->GetSize();
    if (c.anyTx && h.GetSequenceNumber() < c.highTx)
    {
        c.retransmits++;
    }
    if (!c.anyTx || end > c.highTx)
    {
        c.highTx = end;
        c.anyTx = true;
    }
}

void
OnCongState(uint32_t i, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    if (now == TcpSocketState::CA_LOSS)
    {
        g_tcp[i].lossEntries++;
    }
    else if (now == TcpSocketState::CA_RECOVERY)
    {
        g_tcp[i].recoveries++;
    }
}

void
OnRto(uint32_t i, Time old, Time now)
{
    if (now == old + old || (now == Seconds(60) && old >= Seconds(30) && old < now))
    {
        g_tcp[i].timeouts++;
    }
}

void
OnCwnd(uint32_t i, uint32_t, uint32_t now)
{
    TcpCounters& c = g_tcp[i];
    double t = Simulator::Now().GetSeconds();
    c.cwndSegSec += c.cwndNow * (t - c.cwndLastT);
    c.cwndLastT = t;
    c.cwndNow = double(now) / g_segSize;
}

// --trace: every cwnd / ssthresh / congestion-state change of every TCP flow.
std::ofstream g_trace;

// Time of each sink's last received packet (--maxBytes: when the flow completed there).
std::vector<double> g_lastRx;

void
OnSinkRx(uint32_t i, Ptr<const Packet>, const Address&)
{
    g_lastRx[i] = Simulator::Now().GetSeconds();
}

void
TraceValue(uint32_t i, const char* what, uint32_t, uint32_t now)
{
    g_trace << Simulator::Now().GetSeconds() << " " << i << " " << what << " " << now << "\n";
}

void
TraceState(uint32_t i, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    g_trace << Simulator::Now().GetSeconds() << " " << i << " state "
            << TcpSocketState::TcpCongStateName[now] << "\n";
}

void
OnPacingRate(uint32_t i, DataRate, DataRate now)
{
    TcpCounters& c = g_tcp[i];
    double t = Simulator::Now().GetSeconds();
    c.paceBitSec += c.paceNow * (t - c.paceLastT);
    c.paceLastT = t;
    c.paceNow = double(now.GetBitRate());
    if (c.paceNow > c.paceMax)
    {
        c.paceMax = c.paceNow;
    }
}

// The BulkSend socket exists once its application has started.
void
HookTcp(uint32_t i, bool counters, Ptr<BulkSendApplication> app)
{
    Ptr<TcpSocketBase> s = DynamicCast<TcpSocketBase>(app->GetSocket());
    if (g_trace.is_open())
    {
        s->TraceConnectWithoutContext("CongestionWindow",
                                      MakeBoundCallback(&TraceValue, i, "cwnd"));
        s->TraceConnectWithoutContext("SlowStartThreshold",
                                      MakeBoundCallback(&TraceValue, i, "ssthresh"));
        s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&TraceState, i));
    }
    if (!counters)
    {
        return;
    }
    s->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnTcpTx, i));
    s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnCongState, i));
    s->TraceConnectWithoutContext("RTO", MakeBoundCallback(&OnRto, i));
    s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&OnCwnd, i));
    s->TraceConnectWithoutContext("PacingRate", MakeBoundCallback(&OnPacingRate, i));
}

} // namespace

int
main(int argc, char* argv[])
{
    auto t0 = std::chrono::steady_clock::now();
    uint32_t nTcp = 5;
    uint32_t nUdp = 0;
    std::string udpRate = "500kbps";
    uint32_t udpPkt = 1024;
    std::string accessRate = "10Mbps";
    std::string accessDelay = "1ms";
    std::string bnRate = "1Mbps";
    std::string bnDelay = "10ms";
    std::string qdisc = "DropTail";
    std::string qlimit = "20p";
    double minTh = 5;
    double maxTh = 15;
    double maxP = 0.02;
    double qw = 0.002;
    std::string tcp = "TcpLinuxReno";
    std::string recovery = "Prr";
    uint32_t segSize = 1448;
    uint32_t initCwnd = 10;
    uint32_t delAck = 2;
    bool sack = true;
    bool timestamps = true;
    uint32_t sndBuf = 131072;
    uint32_t rcvBuf = 131072;
    std::string accessQueue = "100p";
    double simTime = 100;
    double stagger = 0;
    std::string accessDelays; // per-sender access delays, "1ms,2.5ms,..." (empty: accessDelay)
    std::string startList;    // per-flow start times in seconds, "0,0.31,..." (empty: stagger)
    bool flowmon = false;
    bool tcpStats = false;
    std::string pcap;
    std::string trace;
    uint32_t seed = 1;
    bool ecn = false;
    bool redEcn = false;
    bool hardDrop = true;
    bool gentle = true;
    std::string tcpTypes; // per-flow types, comma-separated; empty: every flow is `tcp`
    bool pacing = false;
    double warmup = 0; // > 0: also report goodput, queue and drops from this time on
    // --tbfRate: a TbfQueueDisc at the bottleneck's root, the chosen qdisc its one child
    std::string tbfRate;
    uint32_t tbfBurst = 125000; // TbfQueueDisc Burst default
    std::string tbfPeak;        // empty: no second bucket (PeakRate 0)
    uint32_t tbfMtu = 0;        // 0: the device MTU (TbfQueueDisc Mtu default)
    std::string bnSchedule;     // file of "t_s rate_bps" lines for the L -> R device
    std::string revFlows;       // pair indices with a bulk TCP flow receiver_i -> sender_i
    uint64_t maxBytes = 0;      // BulkSend MaxBytes of each forward TCP flow (0: unlimited)
    double revStart = 0;

    CommandLine cmd(__FILE__);
    cmd.AddValue("nTcp", "TCP flows", nTcp);
    cmd.AddValue("nUdp", "UDP flows (always-on OnOff) after the TCP flows", nUdp);
    cmd.AddValue("udpRate", "rate of each UDP flow", udpRate);
    cmd.AddValue("udpPkt", "UDP payload bytes", udpPkt);
    cmd.AddValue("accessRate", "access link rate", accessRate);
    cmd.AddValue("accessDelay", "access link delay", accessDelay);
    cmd.AddValue("bnRate", "bottleneck rate", bnRate);
    cmd.AddValue("bnDelay", "bottleneck delay", bnDelay);
    cmd.AddValue("qdisc", "DropTail | RED | CoDel | FqCoDel | PIE | Cobalt", qdisc);
    cmd.AddValue("qlimit", "queue disc limit: 20p, 5000B or bdp", qlimit);
    cmd.AddValue("tbfRate", "TbfQueueDisc Rate at the root, qdisc its child (empty: no TBF)",
                 tbfRate);
    cmd.AddValue("bnSchedule", "file of 't_s rate_bps' lines: the L->R bottleneck rate over time",
                 bnSchedule);
    cmd.AddValue("revFlows", "comma-separated pair indices: bulk TCP receiver_i -> sender_i",
                 revFlows);
    cmd.AddValue("revStart", "start of the reverse flows (s)", revStart);
    cmd.AddValue("maxBytes", "bytes each forward TCP flow sends (0: unlimited)", maxBytes);
    cmd.AddValue("tbfBurst", "TbfQueueDisc Burst (bytes)", tbfBurst);
    cmd.AddValue("tbfPeak", "TbfQueueDisc PeakRate (empty: none)", tbfPeak);
    cmd.AddValue("tbfMtu", "TbfQueueDisc Mtu (bytes; 0: the device MTU)", tbfMtu);
    cmd.AddValue("minTh", "RED min threshold (unit of qlimit)", minTh);
    cmd.AddValue("maxTh", "RED max threshold (unit of qlimit)", maxTh);
    cmd.AddValue("maxP", "RED max_p (LInterm = 1/maxP)", maxP);
    cmd.AddValue("qw", "RED queue weight", qw);
    cmd.AddValue("tcp", "ns3::Tcp* congestion control type name without ns3::", tcp);
    cmd.AddValue("recovery", "Prr | Classic", recovery);
    cmd.AddValue("segSize", "TCP segment size", segSize);
    cmd.AddValue("initCwnd", "initial cwnd in segments", initCwnd);
    cmd.AddValue("delAck", "delayed ACK count (1 = ACK every segment)", delAck);
    cmd.AddValue("sack", "SACK", sack);
    cmd.AddValue("timestamps", "TCP timestamps", timestamps);
    cmd.AddValue("sndBuf", "send buffer bytes", sndBuf);
    cmd.AddValue("rcvBuf", "receive buffer bytes", rcvBuf);
    cmd.AddValue("accessQueue", "access device queue", accessQueue);
    cmd.AddValue("simTime", "simulated seconds", simTime);
    cmd.AddValue("warmup",
                 "seconds not counted in the \"after_warmup\" measures (0: none reported)",
                 warmup);
    cmd.AddValue("stagger", "flow i starts at i*stagger s", stagger);
    cmd.AddValue("accessDelays",
                 "comma-separated delay of each sender's access link (the receivers' keep "
                 "accessDelay); empty: every link accessDelay",
                 accessDelays);
    cmd.AddValue("starts", "comma-separated start time of each flow in seconds; empty: i*stagger",
                 startList);
    cmd.AddValue("flowmon", "FlowMonitor for per-flow drops and delay", flowmon);
    cmd.AddValue("tcpStats", "per-flow TCP sender counters (timeouts, recoveries, retransmits)",
                 tcpStats);
    cmd.AddValue("pcap", "pcap file prefix: every sender's access device and the bottleneck (L side)",
                 pcap);
    cmd.AddValue("trace", "file for every TCP flow's cwnd, ssthresh and congestion-state changes",
                 trace);
    cmd.AddValue("seed", "RNG run number", seed);
    cmd.AddValue("ecn", "TcpSocketBase UseEcn On (ECT on data, ECE/CWR; TcpDctcp sets ECT(0))", ecn);
    cmd.AddValue("redEcn", "RED (and Cobalt) UseEcn: mark ECT packets instead of early drops",
                 redEcn);
    cmd.AddValue("hardDrop", "RED UseHardDrop: forced drops stay drops (false: mark ECT)", hardDrop);
    cmd.AddValue("gentle", "RED Gentle", gentle);
    cmd.AddValue("tcpTypes",
                 "per-flow ns3::Tcp* types, comma-separated (flow i takes entry i, the last one "
                 "repeats; empty: every flow uses --tcp)",
                 tcpTypes);
    cmd.AddValue("pacing", "TcpSocketState::EnablePacing (TcpBbr paces whatever this says)",
                 pacing);
    cmd.Parse(argc, argv);

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);

    Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue("ns3::" + tcp));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       StringValue(recovery == "Classic" ? "ns3::TcpClassicRecovery"
                                                         : "ns3::TcpPrrRecovery"));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(segSize));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(initCwnd));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(delAck));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(sndBuf));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(rcvBuf));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(timestamps));
    if (ecn)
    {
        Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue("On"));
    }

    if (!trace.empty())
    {
        g_trace.open(trace);
        g_trace.precision(10);
        if (!g_trace)
        {
            std::fprintf(stderr, "trace: cannot write %s\n", trace.c_str());
            return 2;
        }
    }

    Config::SetDefault("ns3::TcpSocketState::EnablePacing", BooleanValue(pacing));
    std::vector<std::string> types;
    {
        std::stringstream ss(tcpTypes);
        std::string t;
        while (std::getline(ss, t, ','))
        {
            if (!t.empty())
            {
                types.push_back(t);
            }
        }
    }

    uint32_t n = nTcp + nUdp;
    g_lastRx.assign(n, -1.0);
    g_tcp.assign(nTcp, TcpCounters{});
    g_segSize = segSize;
    NodeContainer routers;
    routers.Create(2);
    NodeContainer senders;
    senders.Create(n);
    NodeContainer receivers;
    receivers.Create(n);
    InternetStackHelper stack;
    stack.InstallAll();

    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", StringValue(accessRate));
    access.SetChannelAttribute("Delay", StringValue(accessDelay));
    access.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue(accessQueue));
    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", StringValue(bnRate));
    bottleneck.SetChannelAttribute("Delay", StringValue(bnDelay));
    bottleneck.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));

    NetDeviceContainer bnDev = bottleneck.Install(routers.Get(0), routers.Get(1));
    std::vector<NetDeviceContainer> sDev(n);
    std::vector<NetDeviceContainer> rDev(n);
    for (uint32_t i = 0; i < n; i++)
    {
        sDev[i] = access.Install(senders.Get(i), routers.Get(0));
        rDev[i] = access.Install(routers.Get(1), receivers.Get(i));
    }
    if (!bnSchedule.empty())
    {
        std::ifstream in(bnSchedule);
        if (!in)
        {
            std::fprintf(stderr, "bnSchedule: cannot read %s\n", bnSchedule.c_str());
            return 2;
        }
        Ptr<PointToPointNetDevice> fwd = DynamicCast<PointToPointNetDevice>(bnDev.Get(0));
        double t = 0;
        uint64_t bps = 0;
        while (in >> t >> bps)
        {
            Simulator::Schedule(Seconds(t), &PointToPointNetDevice::SetDataRate, fwd,
                                DataRate(bps));
        }
    }
    // Per-sender access delays (bench/validation's ensembles jitter them): the channel of each
    // sender's link gets its own delay; node and device creation order stay as above.
    std::vector<std::string> senderDelays = SplitList(accessDelays);
    std::vector<std::string> startTimes = SplitList(startList);
    if ((!senderDelays.empty() && senderDelays.size() != n) ||
        (!startTimes.empty() && startTimes.size() != n))
    {
        std::fprintf(stderr, "--accessDelays and --starts need one value per flow (%u)\n", n);
        return 2;
    }
    for (uint32_t i = 0; i < senderDelays.size(); i++)
    {
        sDev[i].Get(0)->GetChannel()->SetAttribute("Delay", TimeValue(Time(senderDelays[i])));
    }

    // Bottleneck queue disc, both directions (installed before addresses, so the default is not).
    uint32_t ipPkt = segSize + 40 + (timestamps ? 12 : 0);
    double baseRtt = 2 * (2 * Time(accessDelay).GetSeconds() + Time(bnDelay).GetSeconds());
    bool byteMode = false;
    QueueSize limit = ParseLimit(qlimit, DataRate(bnRate), baseRtt, ipPkt, &byteMode);
    TrafficControlHelper tch;
    uint16_t tbfHandle = 0;
    uint16_t tbfClass = 0;
    if (!tbfRate.empty())
    {
        tbfHandle = tch.SetRootQueueDisc("ns3::TbfQueueDisc",
                                         "Rate", DataRateValue(DataRate(tbfRate)),
                                         "Burst", UintegerValue(tbfBurst),
                                         "Mtu", UintegerValue(tbfMtu),
                                         "PeakRate",
                                         DataRateValue(DataRate(tbfPeak.empty() ? "0bps" : tbfPeak)));
        tbfClass = tch.AddQueueDiscClasses(tbfHandle, 1, "ns3::QueueDiscClass")[0];
    }
    // The chosen qdisc: the root, or the TBF's child.
    auto setQd = [&](const std::string& type, auto&&... args) {
        if (tbfRate.empty())
        {
            tch.SetRootQueueDisc(type, args...);
        }
        else
        {
            tch.AddChildQueueDisc(tbfHandle, tbfClass, type, args...);
        }
    };
    if (qdisc == "DropTail")
    {
        setQd("ns3::FifoQueueDisc", "MaxSize", QueueSizeValue(limit));
    }
    else if (qdisc == "RED")
    {
        setQd("ns3::RedQueueDisc",
                             "MaxSize", QueueSizeValue(limit),
                             "MinTh", DoubleValue(minTh),
                             "MaxTh", DoubleValue(maxTh),
                             "LInterm", DoubleValue(1.0 / maxP),
                             "QW", DoubleValue(qw),
                             "MeanPktSize", UintegerValue(ipPkt),
                             "LinkBandwidth", DataRateValue(DataRate(bnRate)),
                             "LinkDelay", TimeValue(Time(bnDelay)),
                             "UseEcn", BooleanValue(redEcn),
                             "UseHardDrop", BooleanValue(hardDrop),
                             "Gentle", BooleanValue(gentle));
    }
    else if (qdisc == "CoDel")
    {
        setQd("ns3::CoDelQueueDisc", "MaxSize", QueueSizeValue(limit));
    }
    else if (qdisc == "FqCoDel")
    {
        setQd("ns3::FqCoDelQueueDisc", "MaxSize", QueueSizeValue(limit));
    }
    else if (qdisc == "PIE")
    {
        setQd("ns3::PieQueueDisc",
                             "MaxSize", QueueSizeValue(limit),
                             "MeanPktSize", UintegerValue(ipPkt));
    }
    else if (qdisc == "Cobalt")
    {
        // CobaltQueueDisc's other attributes at their defaults (Target 5 ms, Interval 100 ms,
        // Increment 1/256, Decrement 1/4096, BlueThreshold 400 ms, CeThreshold off)
        setQd("ns3::CobaltQueueDisc",
                             "MaxSize", QueueSizeValue(limit),
                             "UseEcn", BooleanValue(redEcn));
    }
    else
    {
        std::fprintf(stderr, "unknown qdisc %s (DropTail RED CoDel FqCoDel PIE Cobalt)\n",
                     qdisc.c_str());
        return 2;
    }
    QueueDiscContainer qdiscs = tch.Install(bnDev);
    Ptr<QueueDisc> q = qdiscs.Get(0); // L -> R
    q->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnPackets));
    q->TraceConnectWithoutContext("BytesInQueue", MakeCallback(&OnBytes));
    Ptr<Queue<Packet>> devQ = DynamicCast<PointToPointNetDevice>(bnDev.Get(0))->GetQueue();
    devQ->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnDevPackets));
    devQ->TraceConnectWithoutContext("BytesInQueue", MakeCallback(&OnDevBytes));

    if (!pcap.empty())
    {
        for (uint32_t i = 0; i < n; i++)
        {
            access.EnablePcap(pcap + "-s" + std::to_string(i), sDev[i].Get(0), false, true);
        }
        bottleneck.EnablePcap(pcap + "-bn", bnDev.Get(0), false, true);
    }

    // Addresses: one /30 per link. Access links get no queue disc (Uninstall after Assign).
    Ipv4AddressHelper addr("10.0.0.0", "255.255.255.252");
    addr.Assign(bnDev);
    addr.NewNetwork();
    TrafficControlHelper none;
    std::vector<Ipv4Address> rcvAddr(n);
    std::vector<Ipv4Address> sndAddr(n);
    for (uint32_t i = 0; i < n; i++)
    {
        sndAddr[i] = addr.Assign(sDev[i]).GetAddress(0);
        addr.NewNetwork();
        rcvAddr[i] = addr.Assign(rDev[i]).GetAddress(1);
        addr.NewNetwork();
        none.Uninstall(sDev[i]);
        none.Uninstall(rDev[i]);
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    // Applications.
    std::vector<Ptr<PacketSink>> sinks(n);
    std::vector<double> starts(n);
    uint16_t port = 5000;
    for (uint32_t i = 0; i < n; i++)
    {
        starts[i] = startTimes.empty() ? i * stagger : std::stod(startTimes[i]);
        bool isTcp = i < nTcp;
        std::string factory = isTcp ? "ns3::TcpSocketFactory" : "ns3::UdpSocketFactory";
        PacketSinkHelper sinkHelper(factory, InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sa = sinkHelper.Install(receivers.Get(i));
        sa.Start(Seconds(0));
        sinks[i] = DynamicCast<PacketSink>(sa.Get(0));
        sinks[i]->TraceConnectWithoutContext("Rx", MakeBoundCallback(&OnSinkRx, i));
        ApplicationContainer ca;
        if (isTcp)
        {
            if (!types.empty())
            {
                // the sender node's TCP creates its sockets with this flow's type
                std::string t = types[std::min<size_t>(i, types.size() - 1)];
                senders.Get(i)->GetObject<TcpL4Protocol>()->SetAttribute(
                    "SocketType",
                    TypeIdValue(TypeId::LookupByName("ns3::" + t)));
            }
            BulkSendHelper bulk(factory, InetSocketAddress(rcvAddr[i], port));
            bulk.SetAttribute("SendSize", UintegerValue(segSize));
            bulk.SetAttribute("MaxBytes", UintegerValue(maxBytes));
            ca = bulk.Install(senders.Get(i));
        }
        else
        {
            OnOffHelper onoff(factory, InetSocketAddress(rcvAddr[i], port));
            onoff.SetConstantRate(DataRate(udpRate), udpPkt);
            ca = onoff.Install(senders.Get(i));
        }
        ca.Start(Seconds(starts[i]));
        ca.Stop(Seconds(simTime));
        if (isTcp && (tcpStats || !trace.empty()))
        {
            // Scheduled after the application's own start event at the same instant.
            Simulator::Schedule(Seconds(starts[i]) + NanoSeconds(1), &HookTcp, i, tcpStats,
                                DynamicCast<BulkSendApplication>(ca.Get(0)));
        }
    }

    // Reverse bulk flows (--revFlows): receiver i -> sender i, on port 6000.
    std::vector<uint32_t> revIdx;
    for (const std::string& v : SplitList(revFlows))
    {
        revIdx.push_back(std::stoul(v));
        if (revIdx.back() >= n)
        {
            std::fprintf(stderr, "--revFlows: index %u beyond the %u pairs\n", revIdx.back(), n);
            return 2;
        }
    }
    std::vector<Ptr<PacketSink>> revSinks;
    for (uint32_t i : revIdx)
    {
        PacketSinkHelper sh("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), 6000));
        ApplicationContainer sa = sh.Install(senders.Get(i));
        sa.Start(Seconds(0));
        revSinks.push_back(DynamicCast<PacketSink>(sa.Get(0)));
        BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(sndAddr[i], 6000));
        bulk.SetAttribute("SendSize", UintegerValue(segSize));
        bulk.SetAttribute("MaxBytes", UintegerValue(0));
        ApplicationContainer ca = bulk.Install(receivers.Get(i));
        ca.Start(Seconds(revStart));
        ca.Stop(Seconds(simTime));
    }

    FlowMonitorHelper fmh;
    Ptr<FlowMonitor> fm;
    if (flowmon)
    {
        fm = fmh.InstallAll();
    }

    if (warmup > 0)
    {
        Simulator::Schedule(Seconds(warmup), [&sinks, &qdiscForWarmup = q]() {
            g_q.Advance();
            g_dev.Advance();
            for (auto& k : sinks)
            {
                g_warm.rx.push_back(k->GetTotalRx());
            }
            g_warm.pktSec = g_q.pktSec;
            g_warm.byteSec = g_q.byteSec;
            g_warm.devByteSec = g_dev.byteSec;
            g_warm.devPktSec = g_dev.pktSec;
            QueueDisc::Stats w = qdiscForWarmup->GetStats();
            g_warm.arrivals = w.nTotalReceivedPackets;
            g_warm.drops = w.nTotalDroppedPackets;
        });
    }
    Simulator::Stop(Seconds(simTime));
    auto t1 = std::chrono::steady_clock::now();
    Simulator::Run();
    auto t2 = std::chrono::steady_clock::now();
    g_q.Advance();
    g_dev.Advance();

    // Packet-hops: every packet a point-to-point device sends passes its device queue.
    uint64_t hops = 0;
    for (uint32_t k = 0; k < NodeList::GetNNodes(); k++)
    {
        Ptr<Node> node = NodeList::GetNode(k);
        for (uint32_t d = 0; d < node->GetNDevices(); d++)
        {
            Ptr<PointToPointNetDevice> p2p = DynamicCast<PointToPointNetDevice>(node->GetDevice(d));
            if (p2p)
            {
                Ptr<Queue<Packet>> dq = p2p->GetQueue();
                hops += dq->GetTotalReceivedPackets() - dq->GetTotalDroppedPackets();
            }
        }
    }

    // Per-flow FlowMonitor data, keyed by receiver address (data direction only).
    std::map<uint32_t, FlowMonitor::FlowStats> byRcv;
    if (flowmon)
    {
        fm->CheckForLostPackets();
        Ptr<Ipv4FlowClassifier> cls = DynamicCast<Ipv4FlowClassifier>(fmh.GetClassifier());
        for (auto& [id, st] : fm->GetFlowStats())
        {
            Ipv4FlowClassifier::FiveTuple t = cls->FindFlow(id);
            if (t.destinationPort == port)
            {
                byRcv[t.destinationAddress.Get()] = st;
            }
        }
    }

    std::ostringstream o;
    o.precision(10);
    o << "{\"simulator\":\"ns-3\",\"version\":\"3.44\",\"config\":{";
    o << "\"nTcp\":" << nTcp << ",\"nUdp\":" << nUdp << ",\"bnRate\":" << JsonStr(bnRate)
      << ",\"bnDelay\":" << JsonStr(bnDelay) << ",\"qdisc\":" << JsonStr(qdisc)
      << ",\"qlimit\":" << JsonStr(limit.GetValue() ? std::to_string(limit.GetValue()) +
                                                          (byteMode ? "B" : "p")
                                                    : qlimit)
      << ",\"tcp\":" << JsonStr(tcp) << ",\"recovery\":" << JsonStr(recovery)
      << ",\"segSize\":" << segSize << ",\"simTime\":" << simTime << ",\"flowmon\":" << flowmon
      << ",\"tbfRate\":" << JsonStr(tbfRate) << ",\"tbfBurst\":" << tbfBurst
      << ",\"tbfPeak\":" << JsonStr(tbfPeak) << ",\"tbfMtu\":" << tbfMtu
      << ",\"bnSchedule\":" << JsonStr(bnSchedule)
      << "},\"flows\":[";
    double total = 0;
    double delaySum = 0;
    uint64_t delayN = 0;
    for (uint32_t i = 0; i < n; i++)
    {
        double active = simTime - starts[i];
        double gp = sinks[i]->GetTotalRx() * 8.0 / active;
        total += gp;
        o << (i ? "," : "") << "{\"id\":" << i << ",\"kind\":\"" << (i < nTcp ? "tcp" : "udp")
          << "\",\"rx_bytes\":" << sinks[i]->GetTotalRx() << ",\"goodput_bps\":" << gp
          << ",\"last_rx_s\":" << g_lastRx[i];
        auto it = byRcv.find(rcvAddr[i].Get());
        if (it != byRcv.end())
        {
            const FlowMonitor::FlowStats& st = it->second;
            double d = st.rxPackets ? st.delaySum.GetSeconds() / st.rxPackets : 0;
            delaySum += st.delaySum.GetSeconds();
            delayN += st.rxPackets;
            uint64_t dropped = 0;
            for (auto x : st.packetsDropped)
            {
                dropped += x;
            }
            o << ",\"tx_packets\":" << st.txPackets << ",\"rx_packets\":" << st.rxPackets
              << ",\"dropped_packets\":" << dropped << ",\"delay_mean_s\":" << d;
        }
        if (tcpStats && i < nTcp)
        {
            TcpCounters& c = g_tcp[i];
            c.cwndSegSec += c.cwndNow * (simTime - c.cwndLastT);
            o << ",\"tcp\":{\"segments_sent\":" << c.segments
              << ",\"retransmitted_segments\":" << c.retransmits
              << ",\"timeouts\":" << c.timeouts << ",\"loss_entries\":" << c.lossEntries
              << ",\"fast_retransmits\":" << c.recoveries
              << ",\"cwnd_mean_segments\":" << c.cwndSegSec / active;
            if (c.paceMax > 0)
            {
                c.paceBitSec += c.paceNow * (simTime - c.paceLastT);
                o << ",\"pacing_rate_mean_bps\":" << c.paceBitSec / active
                  << ",\"pacing_rate_last_bps\":" << c.paceNow;
            }
            o << "}";
        }
        o << "}";
    }
    o << "],\"reverse_flows\":[";
    for (size_t k = 0; k < revSinks.size(); k++)
    {
        o << (k ? "," : "") << "{\"pair\":" << revIdx[k]
          << ",\"rx_bytes\":" << revSinks[k]->GetTotalRx()
          << ",\"goodput_bps\":" << revSinks[k]->GetTotalRx() * 8.0 / (simTime - revStart) << "}";
    }
    QueueDisc::Stats s = q->GetStats();
    uint64_t early = 0;
    uint64_t forced = 0;
    o << "],\"goodput_total_bps\":" << total << ",\"queue\":{\"discipline\":"
      << JsonStr(q->GetInstanceTypeId().GetName()) << ",\"arrivals\":" << s.nTotalReceivedPackets
      << ",\"drops\":" << s.nTotalDroppedPackets << ",\"reasons\":{";
    bool first = true;
    for (const auto* m : {&s.nDroppedPacketsBeforeEnqueue, &s.nDroppedPacketsAfterDequeue})
    {
        for (auto& [reason, cnt] : *m)
        {
            o << (first ? "" : ",") << JsonStr(reason) << ":" << cnt;
            first = false;
            bool isEarly = reason.find("Unforced") != std::string::npos ||
                           reason.find("Target exceeded") != std::string::npos;
            (isEarly ? early : forced) += cnt;
        }
    }
    o << "},\"early_drops\":" << early << ",\"forced_drops\":" << forced
      << ",\"avg_packets\":" << g_q.pktSec / simTime << ",\"avg_bytes\":" << g_q.byteSec / simTime
      << ",\"max_packets\":" << g_q.maxPkts
      << ",\"device_avg_packets\":" << g_dev.pktSec / simTime
      << ",\"device_avg_bytes\":" << g_dev.byteSec / simTime;
    if (ecn || redEcn)
    {
        o << ",\"marks\":" << s.nTotalMarkedPackets;
    }
    o << "}";
    if (warmup > 0 && g_warm.rx.size() == n)
    {
        double span = simTime - warmup;
        o << ",\"after_warmup\":{\"warmup_s\":" << warmup << ",\"goodput_bps\":[";
        for (uint32_t i = 0; i < n; i++)
        {
            double from = std::max(warmup, starts[i]);
            o << (i ? "," : "") << (sinks[i]->GetTotalRx() - g_warm.rx[i]) * 8.0 / (simTime - from);
        }
        o << "],\"arrivals\":" << s.nTotalReceivedPackets - g_warm.arrivals
          << ",\"drops\":" << s.nTotalDroppedPackets - g_warm.drops
          << ",\"avg_packets\":" << (g_q.pktSec - g_warm.pktSec) / span
          << ",\"avg_bytes\":" << (g_q.byteSec - g_warm.byteSec) / span
          << ",\"device_avg_packets\":" << (g_dev.pktSec - g_warm.devPktSec) / span
          << ",\"device_avg_bytes\":" << (g_dev.byteSec - g_warm.devByteSec) / span << "}";
    }
    if (delayN)
    {
        o << ",\"delay_mean_s\":" << delaySum / delayN;
    }
    double runWall = std::chrono::duration<double>(t2 - t1).count();
    o << ",\"packet_hops\":" << hops << ",\"events\":" << Simulator::GetEventCount()
      << ",\"sim_wall_s\":" << runWall
      << ",\"setup_wall_s\":" << std::chrono::duration<double>(t1 - t0).count() << "}";
    std::printf("%s\n", o.str().c_str());
    Simulator::Destroy();
    return 0;
}
