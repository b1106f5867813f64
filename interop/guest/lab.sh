#!/bin/sh
# The lab's guest side (busybox sh): runs the cases the host put under /lab/cases/*/,
# one after the other, each on freshly created mac80211_hwsim radios:
#   phy0/wlan0  the access point (hostapd, or wsec ap on radio:wlan0)
#   phy1/wlan1  the station (wpa_supplicant in netns "sta", or wsec sta on radio:wlan1
#               with its TAP in netns "sta")
#   phy2/wlan2  a monitor recording the air (tcpdump -> air.pcap)
#   phy3/wlan3  an injector (wsec inject) for the replay cases, or the second AP of an
#               OWE transition pair (ap2.conf: hostapd's second configuration file in the
#               same process, or a second wsec ap on radio:wlan3)
# A case directory holds case.env (AP=hostapd|wsec STA=wpas|wsec EXPECT=connect|fail
# MB=<transfer size> ...), ap.conf and sta.conf. Results go to /lab/out/<case>/result.env.
export PATH=/lab/bin:/usr/sbin:/usr/bin:/sbin:/bin
ip() { /usr/sbin/ip "$@"; }
nsx() { /usr/sbin/ip netns exec sta "$@"; }
AP_IP=10.9.0.1
STA_IP=10.9.0.2
now_ms() { awk '{printf "%d\n", $1 * 1000}' /proc/uptime; }
log() { echo "lab: $*"; }

modprobe tun
for m in ccm gcm cmac ctr ghash-generic libarc4 michael_mic; do modprobe "$m" 2>/dev/null; done

fresh_radios() {
    killall -q hostapd wpa_supplicant wsec tcpdump httpd 2>/dev/null
    sleep 0.3
    ip netns del sta 2>/dev/null
    rmmod mac80211_hwsim 2>/dev/null
    modprobe mac80211_hwsim radios=4 || return 1
    ip netns add sta
    nsx ip link set lo up
    # The monitor that records the air.
    ip link set wlan2 down
    iw dev wlan2 set type monitor
    ip link set wlan2 up
    iw dev wlan2 set channel "$CHANNEL"
}

# Roaming rows: both APs' sides in one bridge (br0, the distribution system), the AP's
# address on it. hostapd puts its radios in it itself (bridge=br0 in its configuration).
bridge_up() {
    ip link add br0 type bridge 2>/dev/null
    ip link set br0 up
}

bridge_add() { # $1 interface: into the DS
    ip link set "$1" master br0
    ip link set "$1" up
}

# The second wsec AP of a roaming row, on radio 3, into the DS.
wsec_ap2_up() {
    wsec ap -c "$C/ap2.conf" --counters >"$O/ap2.log" 2>&1 &
    AP2_PID=$!
    for i in $(seq 1 100); do ip link show wap1 >/dev/null 2>&1 && break; sleep 0.1; done
    bridge_add wap1
}

# A fresh scan by wpa_supplicant that saw BSSID $1 (it roams only to a BSS in its scan
# results; under TCG a scan takes seconds: wait for it to complete). wsec sta keeps every
# BSS of its SSID it hears.
scan_for() {
    [ "$STA" = wpas ] || { sleep 1; return 0; }
    # The end of a scan in wpa_supplicant's debug log (CTRL-EVENT-SCAN-RESULTS goes to the
    # control interface's monitors only, never to this log). A full scan of every channel
    # takes about 11 s in the TCG guest.
    scans=$(grep -c 'wlan1: Scan completed in' "$O/sta.log")
    nsx wpa_cli -p /run/wpa_supplicant -i wlan1 scan >/dev/null
    for i in $(seq 1 60); do
        [ "$(grep -c 'wlan1: Scan completed in' "$O/sta.log")" -gt "$scans" ] &&
            nsx wpa_cli -p /run/wpa_supplicant -i wlan1 scan_results 2>/dev/null | grep -q "^$1" && return 0
        sleep 0.5
    done
    return 1
}

# The station's control interface (wpa_cli's protocol for both).
sta_cli() {
    case $STA in
    wpas) nsx wpa_cli -p /run/wpa_supplicant -i wlan1 "$@" ;;
    wsec) wpa_cli -p /run/wsec_sta -i wsta0 "$@" ;;
    esac
}

# Waits up to $2 s for the station to be connected at BSSID $1 (the BSSID in its status,
# COMPLETED); puts roam<N>=ok|fail and roam<N>_ms from $t0.
arrived() {
    for i in $(seq 1 $(($2 * 10))); do
        st=$(sta_cli status 2>/dev/null)
        if echo "$st" | grep -q "^bssid=$1" && echo "$st" | grep -q '^wpa_state=COMPLETED'; then
            put "roam${ROAMS_DONE}" ok
            put "roam${ROAMS_DONE}_ms" $(($(now_ms) - t0))
            sleep 1
            return 0
        fi
        sleep 0.1
    done
    put "roam${ROAMS_DONE}" fail
    ROAM_FAILED=1
    return 1
}

# The station moves to BSSID $1 (air: FT over the air or, without FT, a reassociation; ds:
# FT over the DS) and is connected there again.
ROAMS_DONE=0
roam_to() {
    ROAMS_DONE=$((ROAMS_DONE + 1))
    cmd=roam
    [ "$2" = ds ] && cmd=ft_ds
    t0=$(now_ms)
    put "roam${ROAMS_DONE}_at_ms" "$t0"
    sta_cli $cmd "$1" >>"$O/roam.txt" 2>&1
    arrived "$1" 15
}

# The station moved to BSSID $1 by itself (its roaming decision: bgscan) within $2 s.
wait_bssid() {
    ROAMS_DONE=$((ROAMS_DONE + 1))
    t0=$(now_ms)
    put "roam${ROAMS_DONE}_at_ms" "$t0"
    arrived "$1" "$2"
}

# A transition to BSSID $1 the target must refuse: the station's log names the status
# code $2 (wsec sta: "ft failed status N"; wpa_supplicant: "status_code=N", or $3 when
# the refusal comes after the station's MLME gave up waiting). wsec sta stays with its AP
# (the ping after the roams checks it); wpa_supplicant, whose kernel left the AP for the
# FT Authentication, connects anew as it sees fit: reported (refused<N>_reconnected), not
# required. Puts refused<N>=ok|fail.
roam_refused() {
    ROAMS_DONE=$((ROAMS_DONE + 1))
    case $STA in
    wpas) want="status_code=$2" ;;
    wsec) want="ft failed status $2" ;;
    esac
    alt=${3:-$want}
    before=$(grep -c -e "$want" -e "$alt" "$O/sta.log")
    sta_cli roam "$1" >>"$O/roam.txt" 2>&1
    for i in $(seq 1 200); do
        [ "$(grep -c -e "$want" -e "$alt" "$O/sta.log")" -gt "$before" ] && break
        sleep 0.1
    done
    if [ "$(grep -c -e "$want" -e "$alt" "$O/sta.log")" -gt "$before" ]; then
        put "refused${ROAMS_DONE}" ok
        STAYED=1
        if [ "$STA" = wpas ]; then
            STAYED=2
            r=no
            for i in $(seq 1 300); do sta_cli status 2>/dev/null | grep -q '^wpa_state=COMPLETED' && { r=yes; break; }; sleep 0.1; done
            put "refused${ROAMS_DONE}_reconnected" "$r"
        fi
        sleep 1
        return 0
    fi
    put "refused${ROAMS_DONE}" fail
    ROAM_FAILED=1
    return 1
}

# A UDP stream each way through the roams (a datagram every 10 ms): losses and gaps.
stream_start() { # $1 seconds
    put stream_t0_ms "$(now_ms)"
    wsec stream recv --bind $AP_IP:5001 --seconds $(($1 + 10)) >"$O/stream-up.txt" 2>&1 &
    SR1=$!
    nsx wsec stream recv --bind $STA_IP:5002 --seconds $(($1 + 10)) >"$O/stream-down.txt" 2>&1 &
    SR2=$!
    sleep 0.5
    nsx wsec stream send --to $AP_IP:5001 --seconds "$1" >/dev/null 2>&1 &
    SS1=$!
    wsec stream send --to $STA_IP:5002 --seconds "$1" >/dev/null 2>&1 &
    SS2=$!
}

stream_end() {
    wait $SS1 $SS2 2>/dev/null
    sleep 1
    kill $SR1 $SR2 2>/dev/null
    wait $SR1 $SR2 2>/dev/null
    for d in up down; do
        l=$(head -1 "$O/stream-$d.txt")
        for kv in $l; do put "stream_${d}_${kv%%=*}" "${kv#*=}"; done
    done
}

start_ap() {
    [ "$BRIDGE" = 1 ] && bridge_up
    if [ -f "$C/radius.conf" ] || [ -d "$C/raddb" ]; then
        # The RADIUS traffic on loopback, for the host's checks (failover timing).
        ip link set lo up
        tcpdump -i lo -w "$O/radius.pcap" -U udp >/dev/null 2>&1 &
    fi
    if [ -d "$C/raddb" ]; then
        # Debian's FreeRADIUS with the configuration interop/run generated from the
        # package's own (-X: every request, its processing and the reply's attributes).
        mkdir -p /tmp/freeradius/log /tmp/freeradius/run
        freeradius -X -d "$C/raddb" >"$O/radius.log" 2>&1 &
        RADIUS_PID=$!
        for i in $(seq 1 600); do grep -q 'Ready to process requests' "$O/radius.log" 2>/dev/null && break; sleep 0.1; done
        grep -q 'Ready to process requests' "$O/radius.log" || log "freeradius not ready"
        # What the server costs the guest's 1 GB (the initramfs lives in it too).
        put radius_rss_kb "$(awk '/^VmRSS/{print $2}' /proc/$RADIUS_PID/status 2>/dev/null)"
        put mem_available_kb "$(awk '/^MemAvailable/{print $2}' /proc/meminfo)"
    elif [ -f "$C/radius.conf" ]; then
        # The RADIUS server of wsec's 802.1X AP: hostapd's integrated one (driver=none).
        ip link set lo up
        hostapd -d -K -t "$C/radius.conf" >"$O/radius.log" 2>&1 &
        RADIUS_PID=$!
        for i in $(seq 1 50); do grep -q 'AP-ENABLED' "$O/radius.log" 2>/dev/null && break; sleep 0.1; done
    fi
    case $AP in
    hostapd)
        # -d -K: the debug log with key material, from which the host takes the SAE PMK to
        # decrypt the recorded air (a passive observer cannot derive it from the password).
        # A second configuration file (OWE transition mode's pair): one process, two radios.
        AP2=
        [ -f "$C/ap2.conf" ] && [ "$AP2_KIND" != wsec ] && AP2="$C/ap2.conf"
        hostapd -d -K -t "$C/ap.conf" $AP2 >"$O/ap.log" 2>&1 &
        AP_PID=$!
        want=1
        [ -n "$AP2" ] && want=2
        for i in $(seq 1 100); do [ "$(grep -c 'AP-ENABLED' "$O/ap.log")" -ge $want ] && break; sleep 0.1; done
        if [ "$BRIDGE" = 1 ]; then ip addr add $AP_IP/24 dev br0; else ip addr add $AP_IP/24 dev wlan0; fi
        ;;
    wsec)
        wsec ap -c "$C/ap.conf" --counters >"$O/ap.log" 2>&1 &
        AP_PID=$!
        for i in $(seq 1 100); do ip link show wap0 >/dev/null 2>&1 && break; sleep 0.1; done
        if [ "$BRIDGE" = 1 ]; then
            bridge_add wap0
            ip addr add $AP_IP/24 dev br0
        else
            ip addr add $AP_IP/24 dev wap0
            ip link set wap0 up
        fi
        if [ -f "$C/ap2.conf" ] && [ "$AP2_LATE" != 1 ]; then
            # The second BSS of an OWE transition pair: its own process and radio.
            wsec ap -c "$C/ap2.conf" --counters >"$O/ap2.log" 2>&1 &
            AP2_PID=$!
            for i in $(seq 1 100); do ip link show wap1 >/dev/null 2>&1 && break; sleep 0.1; done
            ip link set wap1 up
        fi
        ;;
    esac
}

start_sta() {
    case $STA in
    wpas)
        iw phy "$(cat /sys/class/net/wlan1/phy80211/name)" set netns name sta
        nsx wpa_supplicant -d -K -t -i wlan1 -D nl80211 -c "$C/sta.conf" >"$O/sta.log" 2>&1 &
        STA_PID=$!
        for i in $(seq 1 50); do nsx ip link show wlan1 >/dev/null 2>&1 && break; sleep 0.1; done
        nsx ip addr add $STA_IP/24 dev wlan1
        ;;
    wsec)
        wsec sta -c "$C/sta.conf" --netns sta --counters >>"$O/sta.log" 2>&1 &
        STA_PID=$!
        for i in $(seq 1 100); do nsx ip link show wsta0 >/dev/null 2>&1 && break; sleep 0.1; done
        nsx ip addr add $STA_IP/24 dev wsta0 2>/dev/null
        nsx ip link set wsta0 up
        ;;
    esac
}

# Connected = the station has its keys (wpa_supplicant COMPLETED; wsec sta: data open).
sta_connected() {
    case $STA in
    wpas) nsx wpa_cli -p /run/wpa_supplicant -i wlan1 status 2>/dev/null | grep -q '^wpa_state=COMPLETED' ;;
    wsec) [ "$(grep -c 'data open' "$O/sta.log")" -gt "${1:-0}" ] ;;
    esac
}

wait_connected() { # $1 timeout s, $2 previous count of connections (wsec)
    end=$(($(now_ms) + $1 * 1000))
    while [ "$(now_ms)" -lt "$end" ]; do
        sta_connected "$2" && return 0
        sleep 0.1
    done
    return 1
}

# A transfer of $MB MB over TCP (busybox httpd + wget), SHA-256 checked; prints
# "ok <ms>" or "fail <why>".
transfer() { # $1 = up (station to AP) | down (AP to station)
    dd if=/dev/urandom of=/tmp/www/f bs=1048576 count="$MB" 2>/dev/null
    want=$(sha256sum /tmp/www/f | cut -d' ' -f1)
    rm -f /tmp/rx
    t0=$(now_ms)
    if [ "$1" = down ]; then
        httpd -f -p $AP_IP:8080 -h /tmp/www >/dev/null 2>&1 &
        sleep 0.3
        nsx timeout 300 wget -q -O /tmp/rx http://$AP_IP:8080/f
    else
        nsx httpd -f -p $STA_IP:8080 -h /tmp/www >/dev/null 2>&1 &
        sleep 0.3
        timeout 300 wget -q -O /tmp/rx http://$STA_IP:8080/f
    fi
    rc=$?
    t1=$(now_ms)
    killall -q httpd
    got=$(sha256sum /tmp/rx 2>/dev/null | cut -d' ' -f1)
    if [ $rc -eq 0 ] && [ "$got" = "$want" ]; then echo "ok $((t1 - t0 - 300))"; else echo "fail rc=$rc"; fi
}

run_case() {
    C=$1
    NAME=$(basename "$C")
    O=/lab/out/$NAME
    mkdir -p "$O" /tmp/www
    CHANNEL=6
    MB=10
    EXPECT=connect
    REKEY=0
    REPLAY=0
    AMSDU=0
    RECONNECT=1
    CONNECT_S=40
    AP_LOG_HAS=
    STA_LOG_HAS=
    AP2_PID=
    RADIUS_PID=
    ROAM=
    SETUP=
    BRIDGE=0
    AP2_LATE=0
    AP2_KIND=
    AP2_LOG_HAS=
    STREAM=0
    ROAM_FAILED=0
    STAYED=0
    ROAMS_DONE=0
    . "$C/case.env"
    R="$O/result.env"
    : >"$R"
    put() { echo "$1=$2" >>"$R"; }
    put name "$NAME"
    case_t0=$(now_ms)
    log "case $NAME: $AP AP, $STA station, expect $EXPECT"
    fresh_radios || { put result fail; put why "no hwsim radios"; return; }
    tcpdump -i wlan2 -w "$O/air.pcap" -U >/dev/null 2>&1 &
    start_ap
    # What the case does to the AP side before the station starts (e.g. a BSS disabled).
    [ -n "$SETUP" ] && eval "$SETUP"
    sleep 0.5
    t0=$(now_ms)
    start_sta
    if [ "$EXPECT" = fail ]; then
        if wait_connected 20 0; then
            put result fail
            put why "connected although it must not"
        else
            put result pass
            put why "no connection, as expected"
        fi
        sleep 1
    elif ! wait_connected "$CONNECT_S" 0; then
        put result fail
        put why "no connection in $CONNECT_S s"
    else
        t1=$(now_ms)
        put handshake_ms $((t1 - t0))
        ok=1
        if nsx ping -c 3 -W 3 $AP_IP >"$O/ping.txt" 2>&1; then put ping ok; else put ping fail; ok=0; fi
        set -- $(transfer up)
        put up "$1"; put up_ms "${2:-0}"; [ "$1" = ok ] || ok=0
        set -- $(transfer down)
        put down "$1"; put down_ms "${2:-0}"; [ "$1" = ok ] || ok=0
        if [ "$AMSDU" = 1 ]; then
            # A-MSDU transmit: the transfers again with a 1000-octet MTU on both ends, so
            # that two TCP segments fit one of wsec's A-MSDUs on a radio (2250 octets:
            # the monitor's 2304-octet MTU) and a window's worth of them reaches wsec in
            # one batch. (BusyBox ping has no preload to make bursts with.)
            apdev=$(ip -o route get $STA_IP | sed -n 's/.* dev \([^ ]*\).*/\1/p')
            stadev=$(nsx ip -o route get $AP_IP | sed -n 's/.* dev \([^ ]*\).*/\1/p')
            ip link set "$apdev" mtu 1000; nsx ip link set "$stadev" mtu 1000
            set -- $(transfer up)
            put amsdu_up "$1"; [ "$1" = ok ] || ok=0
            set -- $(transfer down)
            put amsdu_down "$1"; [ "$1" = ok ] || ok=0
            ip link set "$apdev" mtu 1500; nsx ip link set "$stadev" mtu 1500
        fi
        if [ "$REPLAY" = 1 ]; then
            # A replayed message 3 of the last 4-way handshake, from a third radio: the
            # station must drop it (replay counter, 12.7.6.4 / KRACK) and keep its key.
            installs=$(grep -c 'data open\|Key negotiation completed' "$O/sta.log")
            pn_before_marker=$(now_ms)
            put replay_inject "$(wsec inject --medium radio:wlan3 --channel "$CHANNEL" --select eapol-m3 --last 1 --repeat 3 "$O/air.pcap" 2>&1 | tail -1)"
            sleep 2
            nsx ping -c 3 -W 3 $AP_IP >>"$O/ping.txt" 2>&1 && put replay_ping ok || { put replay_ping fail; ok=0; }
            after=$(grep -c 'data open\|Key negotiation completed' "$O/sta.log")
            put replay_reinstalls $((after - installs))
            [ "$after" = "$installs" ] || ok=0
            put replay_dropped_wpas "$(grep -c 'Replay Counter did not increase' "$O/sta.log")"
            put replay_at_ms "$pn_before_marker"
        fi
        if [ -n "$ROAM" ]; then
            # The station moves to another BSS (the case's commands make it): the same
            # process, so what it cached (an OKC PMKSA) goes with it.
            n=$(grep -c 'data open' "$O/sta.log")
            [ "$STREAM" -gt 0 ] && stream_start "$STREAM"
            eval "$ROAM"
            [ "$STREAM" -gt 0 ] && stream_end
            [ "$ROAM_FAILED" = 1 ] && ok=0
            # After a refused transition wsec sta has no new connection: it stayed. After
            # wpa_supplicant's refusal its reconnection is reported, not checked.
            if [ "$STAYED" = 2 ]; then
                put roam refused
            elif { [ "$STAYED" = 1 ] || wait_connected 40 "$n"; } && nsx ping -c 2 -W 3 $AP_IP >>"$O/ping.txt" 2>&1; then
                put roam ok
            else
                put roam fail; ok=0
            fi
        elif [ "$RECONNECT" = 1 ]; then
            case $STA in
            wpas)
                nsx wpa_cli -p /run/wpa_supplicant -i wlan1 disconnect >/dev/null
                sleep 1
                nsx wpa_cli -p /run/wpa_supplicant -i wlan1 reconnect >/dev/null
                n=0
                ;;
            wsec)
                n=$(grep -c 'data open' "$O/sta.log")
                if [ -S /run/wsec_sta/wsta0 ]; then
                    # Through wsec sta's control interface, as for wpa_supplicant: the
                    # same process, so a cached PMKSA (SAE) is used on the way back.
                    wpa_cli -p /run/wsec_sta -i wsta0 disconnect >/dev/null
                    sleep 1
                    wpa_cli -p /run/wsec_sta -i wsta0 reconnect >/dev/null
                else
                    kill $STA_PID; wait $STA_PID 2>/dev/null
                    sleep 1
                    start_sta
                fi
                ;;
            esac
            if wait_connected 40 "$n" && nsx ping -c 2 -W 3 $AP_IP >>"$O/ping.txt" 2>&1; then put reconnect ok; else put reconnect fail; ok=0; fi
        fi
        [ $ok = 1 ] && put result pass || put result fail
    fi
    kill $STA_PID $AP_PID $AP2_PID $RADIUS_PID 2>/dev/null
    sleep 1
    killall -q tcpdump
    wait 2>/dev/null
    ip link del br0 2>/dev/null
    # What each side must have said (a negative case's status and reason codes); the
    # nodes' exit counters are in their logs by now.
    if [ -n "$AP_LOG_HAS" ] && ! grep -qF "$AP_LOG_HAS" "$O/ap.log"; then
        sed -i 's/^result=.*/result=fail/' "$R"; put why "AP log lacks: $AP_LOG_HAS"
    fi
    if [ -n "$AP2_LOG_HAS" ] && ! grep -qF "$AP2_LOG_HAS" "$O/ap2.log"; then
        sed -i 's/^result=.*/result=fail/' "$R"; put why "second AP's log lacks: $AP2_LOG_HAS"
    fi
    if [ -n "$STA_LOG_HAS" ] && ! grep -qF "$STA_LOG_HAS" "$O/sta.log"; then
        sed -i 's/^result=.*/result=fail/' "$R"; put why "station log lacks: $STA_LOG_HAS"
    fi
    put case_ms $(($(now_ms) - case_t0))
    log "case $NAME: $(grep '^result=' "$R")"
}

hostapd -v 2>&1 | head -1 >/lab/out/versions.txt
wpa_supplicant -v 2>&1 | head -1 >>/lab/out/versions.txt
uname -r >>/lab/out/versions.txt
for c in /lab/cases/*/; do
    run_case "${c%/}"
done
