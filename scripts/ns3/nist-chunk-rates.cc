// Prints ns-3 3.37's NistErrorRateModel chunk success rates for the OFDM modes the model
// uses (802.11a/g 6-54 Mb/s, 802.11n MCS 0-7) at a few SNRs and bit counts, as JSON: the
// reference values of crates/wsec-model's error model test (tests/data/ns3-nist-chunk-success.json).
// Built and run by hand: g++ -std=c++17 -O2 -o nist-chunk-rates nist-chunk-rates.cc -lns3-wifi -lns3-core ...
#include "ns3/core-module.h"
#include "ns3/wifi-module.h"

#include <cmath>
#include <iomanip>
#include <iostream>

using namespace ns3;

int
main()
{
    Ptr<NistErrorRateModel> m = CreateObject<NistErrorRateModel>();
    std::vector<std::pair<std::string, WifiMode>> modes;
    for (int r : {6, 9, 12, 18, 24, 36, 48, 54})
        modes.push_back({"ofdm" + std::to_string(r), OfdmPhy::GetOfdmRate(r * 1000000ULL, 20)});
    for (int i = 0; i < 8; i++)
        modes.push_back({"ht" + std::to_string(i), HtPhy::GetHtMcs(i)});
    std::cout << std::setprecision(12) << "[";
    bool first = true;
    for (auto& [name, mode] : modes)
    {
        WifiTxVector tx;
        tx.SetMode(mode);
        tx.SetChannelWidth(20);
        tx.SetNss(1);
        tx.SetPreambleType(name[0] == 'h' ? WIFI_PREAMBLE_HT_MF : WIFI_PREAMBLE_LONG);
        for (double db = 0.0; db <= 30.0; db += 1.0)
        {
            for (uint64_t bits : {8ULL, 1000ULL, 12000ULL})
            {
                double snr = std::pow(10.0, db / 10.0);
                double p = m->GetChunkSuccessRate(mode, tx, snr, bits);
                std::cout << (first ? "" : ",") << "\n {\"mode\": \"" << name << "\", \"snr_db\": " << db
                          << ", \"bits\": " << bits << ", \"success\": " << p << "}";
                first = false;
            }
        }
    }
    std::cout << "\n]\n";
    return 0;
}
