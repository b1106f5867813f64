#!/bin/sh
# The capture lab's guest side (busybox sh): real hostapd and real wpa_supplicant on
# mac80211_hwsim radios, recorded by a monitor radio (tcpdump -> air.pcap) while
# `wsec decrypt --live` decrypts the same air from two more monitor radios (one to a
# pcapng file, one as a pcap stream on standard output). Scenarios (interop/captures):
#   ft-psk    two hostapd APs of one mobility domain (FT-PSK, keys generated locally),
#             wpa_supplicant associates with AP 1, roams to AP 2 and back (FT over the air)
#   tdls      a WPA2-PSK hostapd and two wpa_supplicant stations that set up a TDLS direct
#             link, ping over it and tear it down
#   eap       WPA2-Enterprise with hostapd's internal EAP server (EAP-PSK); wpa_supplicant
#             logs its keys (-K) so that the MSK can be read back
#   ft-eap    FT-802.1X between two APs of one hostapd process (RRB inside it, PMK-R1
#             pushed by the R0KH): initial association with AP 1 (EAP-PSK), roams to AP 2
#             and back over the air, then over the DS
#   ft-eap-sha384  the same with FT-802.1X-SHA384 (AKM 13)
#   ft-ds     FT-PSK, the same two APs, to AP 2 and back over the DS (wpa_cli ft_ds)
#   ft-sae    FT-SAE, the roams of ft-eap (the PMK from the -K log)
#   suite-b   WPA3-Enterprise 192-bit (AKM 12): EAP-TLS with P-384 certificates, GCMP-256
# Results: /lab/out/<scenario>/{air.pcap,live.pcapng,live-stream.pcap,*.log,result.env}.
export PATH=/lab/bin:/usr/sbin:/usr/bin:/sbin:/bin
. /lab/cases/params.env
ip() { /usr/sbin/ip "$@"; }
log() { echo "captures: $*"; }
now_ms() { awk '{printf "%d\n", $1 * 1000}' /proc/uptime; }
ns() { n=$1; shift; /usr/sbin/ip netns exec "$n" "$@"; }
for m in ccm gcm cmac ctr ghash-generic libarc4 michael_mic tun; do modprobe "$m" 2>/dev/null; done

radios() { # $1 count
    killall -q hostapd wpa_supplicant wsec tcpdump 2>/dev/null
    sleep 0.3
    for n in sta sta2 ap2; do ip netns del $n 2>/dev/null; done
    rmmod mac80211_hwsim 2>/dev/null
    modprobe mac80211_hwsim radios="$1"
}

to_ns() { # $1 wlanN, $2 netns
    ip netns add "$2" 2>/dev/null
    ns "$2" ip link set lo up
    iw phy "$(cat /sys/class/net/$1/phy80211/name)" set netns name "$2"
}

monitor() { # $1 wlanN: plain monitor on the channel, for tcpdump
    ip link set "$1" down
    iw dev "$1" set type monitor
    ip link set "$1" up
    iw dev "$1" set channel 6
}

record() { # $1 out dir, $2 record iface, $3 live iface, $4 stream iface, then keys
    O=$1; rec=$2; live=$3; stream=$4; shift 4
    monitor "$rec"
    tcpdump -i "$rec" -w "$O/air.pcap" -U >/dev/null 2>&1 &
    wsec decrypt --live "$live" --channel 6 -o "$O/live.pcapng" --json "$@" >"$O/live.json" 2>"$O/live.err" &
    LIVE_PID=$!
    wsec decrypt --live "$stream" --channel 6 -o - "$@" >"$O/live-stream.pcap" 2>"$O/live-stream.err" &
    STREAM_PID=$!
    sleep 1
}

stop_record() {
    sleep 1
    kill -INT $LIVE_PID $STREAM_PID 2>/dev/null
    sleep 1
    killall -q hostapd wpa_supplicant tcpdump 2>/dev/null
    wait 2>/dev/null
}

wpas_state() { # $1 netns $2 iface
    ns "$1" wpa_cli -p /run/wpa_supplicant -i "$2" status 2>/dev/null
}

wait_state() { # $1 netns $2 iface $3 pattern, $4 timeout s
    end=$(($(now_ms) + $4 * 1000))
    while [ "$(now_ms)" -lt "$end" ]; do
        wpas_state "$1" "$2" | grep -q "$3" && return 0
        sleep 0.2
    done
    return 1
}

hapd() { # $1 netns or "-", $2 conf, $3 log
    if [ "$1" = - ]; then hostapd -t -dd -K "$2" >"$3" 2>&1 & else ns "$1" hostapd -t -dd -K "$2" >"$3" 2>&1 & fi
    for i in $(seq 1 100); do grep -q 'AP-ENABLED' "$3" && return 0; sleep 0.1; done
    return 1
}

scenario_ft_psk() {
    O=/lab/out/ft-psk; mkdir -p $O; R=$O/result.env; : >$R
    radios 6
    to_ns wlan1 ap2
    to_ns wlan2 sta
    record $O wlan3 wlan4 wlan5 --ssid "$SSID_FT" --passphrase "$PASS"
    hapd - /lab/cases/ft-ap1.conf $O/ap1.log || echo "ap1=fail" >>$R
    ip addr add 10.9.0.1/24 dev wlan0
    ns sta wpa_supplicant -t -dd -K -i wlan2 -D nl80211 -c /lab/cases/ft-sta.conf >$O/sta.log 2>&1 &
    ns sta ip addr add 10.9.0.2/24 dev wlan2
    wait_state sta wlan2 'wpa_state=COMPLETED' 40 && echo "assoc=ok" >>$R || echo "assoc=fail" >>$R
    ns sta ping -c 4 -W 3 10.9.0.1 >$O/ping1.txt 2>&1 && echo "ping1=ok" >>$R || echo "ping1=fail" >>$R
    hapd ap2 /lab/cases/ft-ap2.conf $O/ap2.log || echo "ap2=fail" >>$R
    ns ap2 ip addr add 10.9.0.1/24 dev wlan1
    wait_scan
    roam 1 air 02:00:00:00:01:00
    roam 2 air 02:00:00:00:00:00
    # FT Authentication Responses (algorithm 2) the station received.
    echo "ft_auth=$(grep -c 'auth_type=2 auth_transaction=2' $O/sta.log)" >>$R
    stop_record
}

wait_scan() { # a fresh scan by the station (netns sta, wlan2) that has seen AP 2
    # A scan under TCG takes seconds: wait until it has completed, not only until AP 2 is
    # in the BSS table (it may be, from the first scan). A transition over the DS started
    # while the station is still scanning fails: the reassociation waits until the scan is
    # aborted and wpa_supplicant's GTK from the Reassociation Response reaches the kernel
    # before the association does ("key not allowed", "FT: Validation of
    # Reassociation Response failed", deauthentication with reason 13).
    scans=$(grep -c 'Scan completed' $O/sta.log)
    ns sta wpa_cli -p /run/wpa_supplicant -i wlan2 scan >/dev/null
    for i in $(seq 1 60); do
        [ "$(grep -c 'Scan completed' $O/sta.log)" -gt "$scans" ] &&
            ns sta wpa_cli -p /run/wpa_supplicant -i wlan2 scan_results 2>/dev/null | grep -q '^02:00:00:00:01:00' && break
        sleep 0.5
    done
}

roam() { # $1 step, $2 air|ds, $3 target BSSID: one fast BSS transition, then pings
    if [ "$2" = ds ]; then cmd=ft_ds; else cmd=roam; fi
    ns sta wpa_cli -p /run/wpa_supplicant -i wlan2 $cmd "$3" >$O/roam$1.txt 2>&1
    if wait_state sta wlan2 "bssid=$3" 20 && wait_state sta wlan2 'wpa_state=COMPLETED' 10; then
        echo "roam$1=$2-ok" >>$R
    else
        echo "roam$1=$2-fail" >>$R
    fi
    ns sta ip neigh flush dev wlan2
    ns sta ping -c 4 -W 3 10.9.0.1 >$O/ping-roam$1.txt 2>&1 && echo "ping_roam$1=ok" >>$R || echo "ping_roam$1=fail" >>$R
}

scenario_roams() { # $1 name, $2 ap1 conf, $3 ap2 conf, $4 sta conf, $5 roams ("air:BSSID ds:BSSID ..."), then record args
    name=$1; ap1=$2; ap2=$3; staconf=$4; roams=$5; shift 5
    O=/lab/out/$name; mkdir -p $O; R=$O/result.env; : >$R
    radios 6
    to_ns wlan2 sta
    record $O wlan3 wlan4 wlan5 "$@"
    ip link add br0 type bridge
    ip link set br0 up
    ip addr add 10.9.0.1/24 dev br0
    # One hostapd process for both APs: hostapd hands RRB messages (the FT Request and
    # Response of a transition over the DS, PMK-R1 push/pull) from one BSS to the other
    # within the process (hostapd_wpa_auth_send_ether, hostapd_wpa_auth_oui_iter); the
    # bridge carries the data.
    hostapd -t -dd -K "$ap1" "$ap2" >$O/ap.log 2>&1 &
    for i in $(seq 1 100); do [ "$(grep -c 'AP-ENABLED' $O/ap.log)" -ge 2 ] && break; sleep 0.1; done
    [ "$(grep -c 'AP-ENABLED' $O/ap.log)" -ge 2 ] || echo "aps=fail" >>$R
    ns sta wpa_supplicant -t -dd -K -i wlan2 -D nl80211 -c "$staconf" >$O/sta.log 2>&1 &
    ns sta ip addr add 10.9.0.2/24 dev wlan2
    wait_state sta wlan2 'wpa_state=COMPLETED' 40 && echo "assoc=ok" >>$R || echo "assoc=fail" >>$R
    ns sta ping -c 4 -W 3 10.9.0.1 >$O/ping1.txt 2>&1 && echo "ping1=ok" >>$R || echo "ping1=fail" >>$R
    wait_scan
    step=1
    for r in $roams; do
        roam $step "${r%%:*}" "${r#*:}"
        step=$((step + 1))
    done
    echo "ft_action_rx=$(grep -c 'FT: Received FT Action frame' $O/ap.log)" >>$R
    echo "ft_over_ds_assoc=$(grep -c 'ft_over_ds=1 reassoc=1' $O/ap.log)" >>$R
    echo "pmk_r1_push_rx=$(grep -c 'FT: Received PMK-R1 push' $O/ap.log)" >>$R
    stop_record
    ip link del br0 2>/dev/null
}

scenario_tdls() {
    O=/lab/out/tdls; mkdir -p $O; R=$O/result.env; : >$R
    radios 6
    to_ns wlan1 sta
    to_ns wlan2 sta2
    record $O wlan3 wlan4 wlan5 --ssid "$SSID" --passphrase "$PASS"
    hapd - /lab/cases/tdls-ap.conf $O/ap.log || echo "ap=fail" >>$R
    ip addr add 10.9.0.1/24 dev wlan0
    ns sta wpa_supplicant -t -dd -K -i wlan1 -D nl80211 -c /lab/cases/psk-sta.conf >$O/sta1.log 2>&1 &
    ns sta2 wpa_supplicant -t -dd -K -i wlan2 -D nl80211 -c /lab/cases/psk-sta.conf >$O/sta2.log 2>&1 &
    ns sta ip addr add 10.9.0.2/24 dev wlan1
    ns sta2 ip addr add 10.9.0.3/24 dev wlan2
    wait_state sta wlan1 'wpa_state=COMPLETED' 40 && wait_state sta2 wlan2 'wpa_state=COMPLETED' 40 && echo "assoc=ok" >>$R || echo "assoc=fail" >>$R
    ns sta ping -c 3 -W 3 10.9.0.3 >$O/ping1.txt 2>&1 && echo "ping_via_ap=ok" >>$R || echo "ping_via_ap=fail" >>$R
    ns sta wpa_cli -p /run/wpa_supplicant -i wlan1 tdls_setup 02:00:00:00:02:00 >$O/tdls-setup.txt 2>&1
    sleep 2
    ns sta wpa_cli -p /run/wpa_supplicant -i wlan1 tdls_link_status 02:00:00:00:02:00 >$O/tdls-status.txt 2>&1
    grep -q 'connected' $O/tdls-status.txt && echo "tdls=ok" >>$R || echo "tdls=fail" >>$R
    ns sta ping -c 5 -W 3 10.9.0.3 >$O/ping2.txt 2>&1 && echo "ping_direct=ok" >>$R || echo "ping_direct=fail" >>$R
    ns sta wpa_cli -p /run/wpa_supplicant -i wlan1 tdls_teardown 02:00:00:00:02:00 >$O/tdls-teardown.txt 2>&1
    sleep 1
    ns sta ping -c 3 -W 3 10.9.0.3 >$O/ping3.txt 2>&1 && echo "ping_after=ok" >>$R || echo "ping_after=fail" >>$R
    stop_record
}

scenario_eap() { # $1 name, $2 ap conf, $3 sta conf
    O=/lab/out/$1; mkdir -p $O; R=$O/result.env; : >$R
    radios 5
    to_ns wlan1 sta
    # No key for the live runs: the MSK is known only afterwards; they record the air.
    record $O wlan2 wlan3 wlan4 --pmk 0000000000000000000000000000000000000000000000000000000000000000
    hapd - "$2" $O/ap.log || echo "ap=fail" >>$R
    ip addr add 10.9.0.1/24 dev wlan0
    ns sta wpa_supplicant -t -dd -K -i wlan1 -D nl80211 -c "$3" >$O/sta.log 2>&1 &
    ns sta ip addr add 10.9.0.2/24 dev wlan1
    wait_state sta wlan1 'wpa_state=COMPLETED' 40 && echo "assoc=ok" >>$R || echo "assoc=fail" >>$R
    ns sta ping -c 4 -W 3 10.9.0.1 >$O/ping.txt 2>&1 && echo "ping=ok" >>$R || echo "ping=fail" >>$R
    stop_record
}

AP1=02:00:00:00:00:00
AP2=02:00:00:00:01:00
# FT-802.1X and FT-SAE: to AP 2 and back over the air, then the same over the DS.
ROAMS="air:$AP2 air:$AP1 ds:$AP2 ds:$AP1"
# No key for the live runs of the 802.1X and SAE scenarios: the MSK or PMK is known only
# afterwards (from wpa_supplicant's key log); they record the air.
NO_KEY=0000000000000000000000000000000000000000000000000000000000000000
hostapd -v 2>&1 | head -1 >/lab/out/versions.txt
wpa_supplicant -v 2>&1 | head -1 >>/lab/out/versions.txt
uname -r >>/lab/out/versions.txt
for s in $SCENARIOS; do
    log "scenario $s"
    case $s in
    ft-psk) scenario_ft_psk ;;
    tdls) scenario_tdls ;;
    eap) scenario_eap eap /lab/cases/eap-ap.conf /lab/cases/eap-sta.conf ;;
    ft-eap) scenario_roams ft-eap /lab/cases/ft-eap-ap1.conf /lab/cases/ft-eap-ap2.conf /lab/cases/ft-eap-sta.conf "$ROAMS" --pmk "$NO_KEY" ;;
    ft-ds) scenario_roams ft-ds /lab/cases/ftds-ap1.conf /lab/cases/ftds-ap2.conf /lab/cases/ftds-sta.conf "ds:$AP2 ds:$AP1" \
        --ssid "$SSID_FTDS" --passphrase "$PASS" ;;
    ft-eap-sha384) scenario_roams ft-eap-sha384 /lab/cases/ft-eap384-ap1.conf /lab/cases/ft-eap384-ap2.conf /lab/cases/ft-eap384-sta.conf \
        "$ROAMS" --pmk "$NO_KEY" ;;
    ft-sae) scenario_roams ft-sae /lab/cases/ft-sae-ap1.conf /lab/cases/ft-sae-ap2.conf /lab/cases/ft-sae-sta.conf "$ROAMS" --pmk "$NO_KEY" ;;
    suite-b) scenario_eap suite-b /lab/cases/suite-b-ap.conf /lab/cases/suite-b-sta.conf ;;
    esac
    log "scenario $s: $(tr '\n' ' ' </lab/out/$s/result.env)"
done
