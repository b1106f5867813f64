// The scenarios of wsec's DCF model (crates/wsec-model) in ns-3 (3.37, Debian libns3-dev),
// for scripts/model-ns3: n stations and an AP in one collision domain (all nodes at one
// point: equal powers, no propagation delay, no channel errors), UDP datagrams with Poisson
// arrivals from every station to the AP (or from sta1 to sta2 through the AP), fixed rates.
// Prints one JSON object: throughput, mean delay, RFC 3550 jitter (the smoothed estimate
// at the end of the window) and the mean |D(i-1,i)| over the window (what FlowMonitor's
// jitterSum / (rxPackets - 1) gives), and what ns-3 actually used (slot, SIFS, CWmin, AIFSN, the rate of ACKs, CTSs and
// beacons, the beacon length), so the comparison can name each convention.
//
// Built by scripts/model-ns3 into $CARGO_TARGET_DIR/ns3/ (not committed).
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/wifi-module.h"

#include <chrono>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <map>
#include <array>
#include <set>
#include <sstream>

using namespace ns3;

namespace
{
double g_warmup = 1.0;
double g_end = 4.0;

// One UDP source: datagrams of m_size octets (a SeqTsHeader carries the send time) with
// exponential gaps of mean m_gap seconds (Poisson arrivals, as the model's `poisson`).
class PoissonSource : public Application
{
  public:
    void Setup(Address peer, uint32_t size, double gap, uint8_t priority)
    {
        m_peer = peer;
        m_priority = priority;
        m_size = size;
        m_gap = gap;
        m_rv = CreateObject<ExponentialRandomVariable>();
        m_rv->SetAttribute("Mean", DoubleValue(gap));
    }
    uint64_t sentInWindow = 0;

  private:
    void StartApplication() override
    {
        m_sock = Socket::CreateSocket(GetNode(), UdpSocketFactory::GetTypeId());
        m_sock->Bind();
        m_sock->Connect(m_peer);
        // The user priority the MAC maps to an access category (QosUtilsMapTidToAc) comes
        // from the IP TOS through Socket::IpTos2Priority (Linux's rt_tos2priority): TOS 0x08
        // -> 2 (BK), 0 -> 0 (BE), 0xb8 -> 4 (VI), 0x10 -> 6 (VO), as in ns-3's
        // examples/wireless/wifi-ac-mapping.cc.
        const uint8_t tos[8] = {0, 0x08, 0x08, 0, 0xb8, 0xb8, 0x10, 0x10};
        m_sock->SetIpTos(tos[m_priority & 7]);
        Next();
    }
    void StopApplication() override
    {
        Simulator::Cancel(m_ev);
    }
    void Next()
    {
        m_ev = Simulator::Schedule(Seconds(m_rv->GetValue()), &PoissonSource::Send, this);
    }
    void Send()
    {
        SeqTsHeader h;
        h.SetSeq(m_seq++);
        Ptr<Packet> p = Create<Packet>(m_size - h.GetSerializedSize());
        p->AddHeader(h);
        double now = Simulator::Now().GetSeconds();
        if (now >= g_warmup && now < g_end)
        {
            sentInWindow++;
        }
        m_sock->Send(p);
        Next();
    }
    Ptr<Socket> m_sock;
    Address m_peer;
    uint32_t m_size = 0;
    uint8_t m_priority = 0;
    double m_gap = 1;
    uint32_t m_seq = 0;
    Ptr<ExponentialRandomVariable> m_rv;
    EventId m_ev;
};

struct FlowStats
{
    uint64_t rxBytesWindow = 0; // received in [warmup, end)
    uint64_t rxCreatedWindow = 0;
    double delaySum = 0;
    bool havePrev = false;
    double prevTransit = 0;
    double jitter = 0; // RFC 3550 6.4.1
    double ipdvSum = 0; // sum of |D(i-1,i)|: FlowMonitor's jitterSum
    uint64_t ipdvN = 0;
};

// Flows by (source address, destination port); the port is 10 + the flow's UP, so the
// access category of each flow is known at the receiver.
std::map<std::pair<Ipv4Address, uint16_t>, FlowStats> g_flows;
std::map<Ptr<Socket>, uint16_t> g_sinkPort;

void
Receive(Ptr<Socket> sock)
{
    Address from;
    Ptr<Packet> p;
    while ((p = sock->RecvFrom(from)))
    {
        SeqTsHeader h;
        uint32_t size = p->GetSize();
        p->RemoveHeader(h);
        double now = Simulator::Now().GetSeconds();
        double sent = h.GetTs().GetSeconds();
        auto& f = g_flows[{InetSocketAddress::ConvertFrom(from).GetIpv4(), g_sinkPort[sock]}];
        if (now >= g_warmup && now < g_end)
        {
            f.rxBytesWindow += size;
        }
        if (sent >= g_warmup && sent < g_end)
        {
            double transit = now - sent;
            f.rxCreatedWindow++;
            f.delaySum += transit;
            if (f.havePrev)
            {
                f.jitter += (std::fabs(transit - f.prevTransit) - f.jitter) / 16.0;
                f.ipdvSum += std::fabs(transit - f.prevTransit);
                f.ipdvN++;
            }
            f.havePrev = true;
            f.prevTransit = transit;
        }
    }
}

std::set<std::string> g_ackModes, g_ctsModes, g_rtsModes, g_beaconModes, g_dataModes, g_cfEndModes;
uint64_t g_cfEnds = 0; // CF-End frames (TXOP truncation, 10.23.2.9)
double g_snrSum = 0;   // SNR of received data frames, read from the sniffer
uint64_t g_snrN = 0;
std::map<std::string, uint64_t> g_dataModeCount; // data PPDUs per mode, in the window

void
SnifferRx(Ptr<const Packet> p, uint16_t, WifiTxVector tx, MpduInfo, SignalNoiseDbm sn, uint16_t)
{
    WifiMacHeader hd;
    p->PeekHeader(hd);
    if (hd.IsData() || hd.IsQosData())
    {
        g_snrSum += sn.signal - sn.noise;
        g_snrN++;
    }
}
uint32_t g_beaconBytes = 0;

void
PsduTxBegin(WifiConstPsduMap psdus, WifiTxVector tx, double)
{
    for (auto& [id, psdu] : psdus)
    {
        const WifiMacHeader& hd = psdu->GetHeader(0);
        std::string m = tx.GetMode().GetUniqueName();
        if (hd.IsAck())
            g_ackModes.insert(m);
        else if (hd.IsCts())
            g_ctsModes.insert(m);
        else if (hd.IsRts())
            g_rtsModes.insert(m);
        else if (hd.IsCfEnd())
        {
            g_cfEndModes.insert(m);
            g_cfEnds++;
        }
        else if (hd.IsBeacon())
        {
            g_beaconModes.insert(m);
            g_beaconBytes = psdu->GetSize();
        }
        else if (hd.IsData() || hd.IsQosData())
        {
            g_dataModes.insert(m);
            double now = Simulator::Now().GetSeconds();
            if (now >= g_warmup && now < g_end)
                g_dataModeCount[m]++;
        }
    }
}

std::string
Join(const std::set<std::string>& s)
{
    std::ostringstream o;
    o << "[";
    bool first = true;
    for (auto& x : s)
    {
        o << (first ? "" : ", ") << "\"" << x << "\"";
        first = false;
    }
    o << "]";
    return o.str();
}
} // namespace

int
main(int argc, char* argv[])
{
    std::string phyName = "g";
    double rate = 54;
    uint32_t stations = 1;
    bool rts = false;
    bool relay = false;
    uint32_t payload = 1472;
    double loadMbps = 0; // total offered; 0 = saturated (1.5 x the PHY rate in all)
    double duration = 3;
    uint32_t seed = 1;
    // Access categories of the stations' flows, one entry per station in turn ("vi,be":
    // station 1 VI, station 2 BE, ...; "vi+be": every station one VI and one BE flow).
    // Empty: one untagged (BE, or DCF without QoS) flow per station.
    std::string acs;
    // Rate control and channel: ns3::ConstantRateWifiManager (fixed --rate), ArfWifiManager
    // or MinstrelWifiManager; --snr > 0 replaces the propagation loss by FixedRssLossModel
    // so every frame arrives with that SNR over ns-3's noise floor (thermal noise in the
    // channel width plus the 7 dB noise figure); the SNR is read back from the sniffer.
    std::string manager = "constant";
    double snrDb = 0;
    CommandLine cmd(__FILE__);
    cmd.AddValue("manager", "constant, arf or minstrel", manager);
    cmd.AddValue("snr", "SNR of every link in dB (0 = the default propagation, no errors at 0 m)", snrDb);
    cmd.AddValue("acs", "access categories of the stations' flows (e.g. vi,be or vi+be); enables QoS", acs);
    cmd.AddValue("phy", "b, a, g or n", phyName);
    cmd.AddValue("rate", "data rate in Mb/s (n: MCS 0-7 rate, 800 ns GI)", rate);
    cmd.AddValue("stations", "number of stations", stations);
    cmd.AddValue("rts", "RTS/CTS before every data frame", rts);
    cmd.AddValue("relay", "one flow sta1 -> AP -> sta2 instead of every station -> AP", relay);
    cmd.AddValue("payload", "UDP payload octets", payload);
    cmd.AddValue("load", "total offered load, Mb/s (0 = saturated)", loadMbps);
    cmd.AddValue("warmup", "seconds before the measurement window", g_warmup);
    cmd.AddValue("duration", "measured seconds", duration);
    cmd.AddValue("seed", "RNG run number", seed);
    cmd.Parse(argc, argv);
    g_end = g_warmup + duration;
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);

    WifiStandard standard;
    std::string band, dataMode, ctlMode;
    auto ofdm = [](double r) {
        std::ostringstream o;
        o << r;
        return o.str();
    };
    if (phyName == "b")
    {
        standard = WIFI_STANDARD_80211b;
        band = "BAND_2_4GHZ";
        dataMode = rate == 5.5 ? "DsssRate5_5Mbps" : "DsssRate" + ofdm(rate) + "Mbps";
        // ns-3's BSSBasicRateSet for 802.11b is {1, 2} Mb/s (ApWifiMac::GetSupportedRates
        // leaves the HR/DSSS rates out), so its ACKs go at 2 Mb/s; RTS at the same rate.
        ctlMode = rate >= 2 ? "DsssRate2Mbps" : "DsssRate1Mbps";
    }
    else if (phyName == "a")
    {
        standard = WIFI_STANDARD_80211a;
        band = "BAND_5GHZ";
        dataMode = "OfdmRate" + ofdm(rate) + "Mbps";
        ctlMode = rate >= 24 ? "OfdmRate24Mbps" : rate >= 12 ? "OfdmRate12Mbps" : "OfdmRate6Mbps";
    }
    else if (phyName == "g")
    {
        standard = WIFI_STANDARD_80211g;
        band = "BAND_2_4GHZ";
        dataMode = "ErpOfdmRate" + ofdm(rate) + "Mbps";
        ctlMode = rate >= 24 ? "ErpOfdmRate24Mbps" : rate >= 12 ? "ErpOfdmRate12Mbps" : "ErpOfdmRate6Mbps";
    }
    else if (phyName == "n")
    {
        standard = WIFI_STANDARD_80211n;
        band = "BAND_2_4GHZ";
        const double rates[] = {6.5, 13, 19.5, 26, 39, 52, 58.5, 65};
        int mcs = 0;
        for (int i = 0; i < 8; i++)
            if (std::fabs(rates[i] - rate) < 0.01)
                mcs = i;
        dataMode = "HtMcs" + std::to_string(mcs);
        ctlMode = "ErpOfdmRate24Mbps";
    }
    else
    {
        std::cerr << "unknown --phy " << phyName << "\n";
        return 2;
    }

    NodeContainer apNode, staNodes;
    apNode.Create(1);
    staNodes.Create(stations);
    WifiHelper wifi;
    wifi.SetStandard(standard);
    if (manager == "arf" || manager == "minstrel")
        wifi.SetRemoteStationManager(manager == "arf" ? "ns3::ArfWifiManager" : "ns3::MinstrelWifiManager",
                                     "RtsCtsThreshold",
                                     UintegerValue(rts ? 0 : 65535));
    else
        wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager",
                                     "DataMode",
                                     StringValue(dataMode),
                                     "ControlMode",
                                     StringValue(ctlMode),
                                     "RtsCtsThreshold",
                                     UintegerValue(rts ? 0 : 65535));
    YansWifiChannelHelper channel = YansWifiChannelHelper::Default();
    if (snrDb > 0)
    {
        // Noise floor: kT x 20 MHz = -100.97 dBm, plus the YansWifiPhy's 7 dB noise figure.
        double noiseDbm = 10 * std::log10(1.3803e-23 * 290 * 20e6 * 1000) + 7;
        channel = YansWifiChannelHelper();
        channel.SetPropagationDelay("ns3::ConstantSpeedPropagationDelayModel");
        channel.AddPropagationLoss("ns3::FixedRssLossModel", "Rss", DoubleValue(noiseDbm + snrDb));
    }
    YansWifiPhyHelper phy;
    phy.SetChannel(channel.Create());
    // The model's curves are the NIST ones (errmodel.rs); ns-3 3.37's default for the Yans
    // PHY is the TableBasedErrorRateModel (link-simulation tables), so ask for NIST.
    if (snrDb > 0)
        phy.SetErrorRateModel("ns3::NistErrorRateModel");
    phy.Set("ChannelSettings", StringValue("{0, 0, " + band + ", 0}"));
    WifiMacHelper mac;
    Ssid ssid("wsec");
    // Stations keep their association however many beacons the saturated channel delays
    // (real stations do; with ns-3's default of 10 missed beacons, 50 saturated 802.11n
    // stations re-associate and hit ns-3.37's "No BSSID set for the link" abort).
    bool qos = !acs.empty() || phyName == "n";
    mac.SetType("ns3::StaWifiMac",
                "QosSupported",
                BooleanValue(qos),
                "Ssid",
                SsidValue(ssid),
                "ActiveProbing",
                BooleanValue(false),
                "MaxMissedBeacons",
                UintegerValue(100000));
    NetDeviceContainer staDevs = wifi.Install(phy, mac, staNodes);
    mac.SetType("ns3::ApWifiMac", "QosSupported", BooleanValue(qos), "Ssid", SsidValue(ssid));
    NetDeviceContainer apDev = wifi.Install(phy, mac, apNode);
    // No aggregation (the model's mac.ampdu_max = 1).
    for (std::string ac : {"BE", "BK", "VI", "VO"})
    {
        Config::Set("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Mac/" + ac + "_MaxAmpduSize", UintegerValue(0));
        Config::Set("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Mac/" + ac + "_MaxAmsduSize", UintegerValue(0));
    }

    MobilityHelper mob;
    mob.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    mob.Install(apNode);
    mob.Install(staNodes);

    InternetStackHelper inet;
    inet.Install(apNode);
    inet.Install(staNodes);
    Ipv4AddressHelper addr;
    addr.SetBase("10.1.0.0", "255.255.0.0");
    Ipv4InterfaceContainer apIf = addr.Assign(apDev);
    Ipv4InterfaceContainer staIf = addr.Assign(staDevs);

    // Per station, the UPs of its flows.
    std::vector<std::vector<uint8_t>> stationUps;
    auto up = [](const std::string& a) -> uint8_t {
        if (a == "bk")
            return 1;
        if (a == "vi")
            return 5;
        if (a == "vo")
            return 6;
        return 0;
    };
    {
        std::stringstream ss(acs);
        std::string item;
        while (std::getline(ss, item, ','))
        {
            std::vector<uint8_t> ups;
            std::stringstream si(item);
            std::string a;
            while (std::getline(si, a, '+'))
                ups.push_back(up(a));
            stationUps.push_back(ups);
        }
        if (stationUps.empty())
            stationUps.push_back({0});
    }
    // The receiver socket(s): one per UP in use, on port 10 + UP.
    std::set<uint8_t> upsInUse;
    for (auto& v : stationUps)
        upsInUse.insert(v.begin(), v.end());
    auto sink = [&](Ptr<Node> n) {
        for (uint8_t u : upsInUse)
        {
            Ptr<Socket> s = Socket::CreateSocket(n, UdpSocketFactory::GetTypeId());
            s->Bind(InetSocketAddress(Ipv4Address::GetAny(), 10 + u));
            s->SetRecvCallback(MakeCallback(&Receive));
            g_sinkPort[s] = 10 + u;
        }
    };
    std::vector<Ptr<PoissonSource>> sources;
    auto source = [&](Ptr<Node> n, Ipv4Address dst, double mbps, uint8_t u) {
        Ptr<PoissonSource> a = CreateObject<PoissonSource>();
        a->Setup(InetSocketAddress(dst, 10 + u), payload, payload * 8.0 / (mbps * 1e6), u);
        n->AddApplication(a);
        // Start after association (beacons every 102.4 ms; passive scanning).
        a->SetStartTime(Seconds(0.5));
        a->SetStopTime(Seconds(g_end));
        sources.push_back(a);
    };
    bool saturated = loadMbps <= 0;
    if (relay)
    {
        sink(staNodes.Get(1));
        source(staNodes.Get(0), staIf.GetAddress(1), saturated ? 1.5 * rate : loadMbps, stationUps[0][0]);
    }
    else
    {
        sink(apNode.Get(0));
        uint32_t nflows = 0;
        for (uint32_t i = 0; i < stations; i++)
            nflows += stationUps[i % stationUps.size()].size();
        for (uint32_t i = 0; i < stations; i++)
            for (uint8_t u : stationUps[i % stationUps.size()])
                source(staNodes.Get(i), apIf.GetAddress(0), (saturated ? 1.5 * rate : loadMbps) / nflows, u);
    }
    Config::ConnectWithoutContext("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Phy/PhyTxPsduBegin",
                                  MakeCallback(&PsduTxBegin));
    Config::ConnectWithoutContext("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Phy/MonitorSnifferRx",
                                  MakeCallback(&SnifferRx));

    Simulator::Stop(Seconds(g_end + (saturated ? 0.0 : 0.5)));
    auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    // What ns-3 used, read after association (the short slot is set then).
    Ptr<WifiNetDevice> sd = DynamicCast<WifiNetDevice>(staDevs.Get(0));
    Ptr<WifiMac> sm = sd->GetMac();
    Ptr<Txop> txop = sm->GetQosSupported() ? Ptr<Txop>(sm->GetQosTxop(AC_BE)) : sm->GetTxop();
    double thr = 0, delay = 0, jitter = 0, ipdv = 0;
    uint64_t rx = 0, sent = 0;
    // Per UP: throughput (sum over its flows), mean delay, mean J and mean |D| over its flows.
    std::map<uint16_t, std::array<double, 6>> perUp; // thr, delaySum, rx, jitterSum, ipdvSum, flows
    for (auto& [a, f] : g_flows)
    {
        auto& u = perUp[a.second - 10];
        u[0] += f.rxBytesWindow * 8.0 / duration / 1e6;
        u[1] += f.delaySum;
        u[2] += f.rxCreatedWindow;
        u[3] += f.jitter;
        u[4] += f.ipdvN ? f.ipdvSum / f.ipdvN : 0;
        u[5] += 1;
        thr += f.rxBytesWindow * 8.0 / duration / 1e6;
        delay += f.delaySum;
        rx += f.rxCreatedWindow;
        jitter += f.jitter;
        ipdv += f.ipdvN ? f.ipdvSum / f.ipdvN : 0;
    }
    for (auto& s : sources)
        sent += s->sentInWindow;
    std::ostringstream perAc;
    const char* acName[8] = {"be", "bk", "bk", "be", "vi", "vi", "vo", "vo"};
    bool firstAc = true;
    for (auto& [u, v] : perUp)
    {
        perAc << (firstAc ? "" : ", ") << "\"" << acName[u & 7] << "\": {\"throughput_mbps\": " << v[0]
              << ", \"delay_mean_ms\": " << (v[2] ? 1e3 * v[1] / v[2] : 0) << ", \"jitter_ms\": " << 1e3 * v[3] / v[5]
              << ", \"ipdv_mean_ms\": " << 1e3 * v[4] / v[5] << ", \"flows\": " << v[5] << "}";
        firstAc = false;
    }
    // The EDCA parameters ns-3 used at the station, per category.
    std::ostringstream edca;
    if (sm->GetQosSupported())
    {
        bool first = true;
        for (auto [ac, name] : {std::pair{AC_BE, "be"}, {AC_BK, "bk"}, {AC_VI, "vi"}, {AC_VO, "vo"}})
        {
            Ptr<Txop> q = sm->GetQosTxop(ac);
            edca << (first ? "" : ", ") << "\"" << name << "\": [" << q->GetMinCw() << ", " << q->GetMaxCw() << ", "
                 << +q->GetAifsn() << ", " << q->GetTxopLimit().GetMicroSeconds() << "]";
            first = false;
        }
    }
    std::cout << std::setprecision(9) << "{\"ns3_version\": \"3.37\", \"throughput_mbps\": " << thr
              << ", \"delay_mean_ms\": " << (rx ? 1e3 * delay / rx : 0)
              << ", \"jitter_ms\": " << (g_flows.empty() ? 0 : 1e3 * jitter / g_flows.size())
              << ", \"ipdv_mean_ms\": " << (g_flows.empty() ? 0 : 1e3 * ipdv / g_flows.size())
              << ", \"flows_received\": " << g_flows.size() << ", \"sent\": " << sent
              << ", \"received\": " << rx << ", \"wall_s\": " << wall
              << ", \"slot_us\": " << sd->GetPhy()->GetSlot().GetMicroSeconds()
              << ", \"sifs_us\": " << sd->GetPhy()->GetSifs().GetMicroSeconds()
              << ", \"cw_min\": " << txop->GetMinCw() << ", \"cw_max\": " << txop->GetMaxCw()
              << ", \"aifsn\": " << +txop->GetAifsn()
              << ", \"qos\": " << (sm->GetQosSupported() ? "true" : "false")
              << ", \"ack_modes\": " << Join(g_ackModes) << ", \"cts_modes\": " << Join(g_ctsModes)
              << ", \"rts_modes\": " << Join(g_rtsModes) << ", \"data_modes\": " << Join(g_dataModes)
              << ", \"beacon_modes\": " << Join(g_beaconModes) << ", \"cf_end_modes\": " << Join(g_cfEndModes)
              << ", \"cf_ends\": " << g_cfEnds << ", \"snr_db\": " << (g_snrN ? g_snrSum / g_snrN : 0)
              << ", \"data_mode_counts\": {" << [] {
                     std::ostringstream o;
                     bool f = true;
                     for (auto& [k, v] : g_dataModeCount)
                     {
                         o << (f ? "" : ", ") << "\"" << k << "\": " << v;
                         f = false;
                     }
                     return o.str();
                 }() << "}"
              << ", \"beacon_bytes\": " << g_beaconBytes << ", \"per_ac\": {" << perAc.str()
              << "}, \"edca_cw_min_max_aifsn_txop_us\": {" << edca.str() << "}}" << std::endl;
    Simulator::Destroy();
    return 0;
}
