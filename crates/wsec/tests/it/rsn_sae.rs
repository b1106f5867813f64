//! SAE (IEEE 802.11-2020 12.4) known-answer tests: Annex J.10 (the vectors hostapd's
//! `common_module_tests.c` `sae_tests` checks), RFC 9380's simplified SWU vectors for the
//! three curves, and the validation rules of 12.4.5.4.

use wsec::rsn::sae::exchange::CommitError;
use wsec::rsn::sae::msg::Commit;
use wsec::rsn::sae::{status, Exchange, Group};

fn h(s: &str) -> Vec<u8> {
    hex::decode(s.replace([' ', '\n'], "")).unwrap()
}

fn rng() -> rand_chacha::ChaCha20Rng {
    rng_seed(22)
}

fn rng_seed(seed: u64) -> rand_chacha::ChaCha20Rng {
    use rand_core::SeedableRng;
    rand_chacha::ChaCha20Rng::seed_from_u64(seed)
}

// IEEE Std 802.11-2020 Annex J.10 (as hostapd src/common/common_module_tests.c).
const ADDR1: [u8; 6] = [0x4d, 0x3f, 0x2f, 0xff, 0xe3, 0x87];
const ADDR2: [u8; 6] = [0xa5, 0xd8, 0xaa, 0x95, 0x8e, 0x3c];
const PW: &[u8] = b"mekmitasdigoat";
const LOCAL_RAND: &str = "992465fd3daa3c60aa6565b7f62a2a7f2e12dd12f198faf4fbed89d7ff1ace94";
const LOCAL_MASK: &str = "9507a90f777a044d6a0830b91ea3d5dd70bece44e1acffb86983b5e1bf9fb322";
const LOCAL_COMMIT: &str = "13002e2c0f0db52440ad146d967114ce005ce1eab0aa2c2e5c2871b774f6c2575c65d5ad9e00829707aa36ba8b859738\
fc961d08243505f47c035376d7ac4bc8d7b95083bf43827d0fc31ed778dd3671fd21a46d1091d64b6f9a1e1272621325dbe1";
const PEER_COMMIT: &str = "1300591b96f3397fb945100848e7b550543b6720d88337ee93fc49fd6df7e08b5223e71b9bb048d3873f20556953a96c\
91536fd8ee6ca9b4a68a148b056a909be03e83ae208f60f8ef5537858074db06687032399862999b511e0a1552a5fea317c2";
const KCK: &str = "1e733f6d9bd53256287304338831b09a39406d121017073a5c30db36f36cb81a";
const PMK: &str = "4e4dfab1a2dd8ac1a91790f953faaa452ae5c6873ab75b63605ba663f8a7fe59";
const PMKID: &str = "8747a600eea3f9f22475df58ca1e5498";

#[test]
fn annex_j10_hunting_and_pecking_commit_and_keys() {
    let group = Group::P256;
    let pwe = group.pwe_hunting_and_pecking(&ADDR1, &ADDR2, PW, &mut rng()).unwrap();
    let mut ex = Exchange::with_rand_mask(group, pwe, false, ADDR1, ADDR2, &h(LOCAL_RAND), &h(LOCAL_MASK)).unwrap();
    let commit = ex.commit_msg(None, None).to_bytes(false);
    assert_eq!(hex::encode(&commit), hex::encode(h(LOCAL_COMMIT)), "local commit");
    let peer = Commit::parse(&h(PEER_COMMIT), false).unwrap();
    ex.process_commit(&peer).unwrap();
    let keys = ex.keys().unwrap();
    assert_eq!(hex::encode(keys.kck()), KCK);
    assert_eq!(hex::encode(keys.pmk()), PMK);
    assert_eq!(hex::encode(keys.pmkid()), PMKID);
}

#[test]
fn annex_j10_hash_to_element_pwe() {
    // PT for ssid "byteme", the password and identifier "psk4internet"; PWE between the
    // two addresses of the H2E part of J.10.
    let addr1b = [0x00, 0x09, 0x5b, 0x66, 0xec, 0x1e];
    let addr2b = [0x00, 0x0b, 0x6b, 0xd9, 0x02, 0x46];
    let pt = Group::P256.pt(b"byteme", PW, Some(b"psk4internet")).unwrap();
    let pwe = Group::P256.pwe_from_pt(&pt, &addr1b, &addr2b).unwrap();
    assert_eq!(
        hex::encode(&pwe[..]),
        "c93049b9e64000f848201649e999f2b5c22dea69b5632c9df4d633b8aa1f6c1e\
         73634e94b53d82e7383a8d258199d9dc1a5ee8269d060382ccbf33e614ff59a0"
            .replace(' ', "")
    );
    // The PWE does not depend on the order of the addresses.
    assert_eq!(Group::P256.pwe_from_pt(&pt, &addr2b, &addr1b).unwrap(), pwe);
}

#[test]
fn hunting_and_pecking_is_symmetric_and_password_bound() {
    for g in [Group::P256, Group::P384, Group::P521] {
        let a = g.pwe_hunting_and_pecking(&ADDR1, &ADDR2, PW, &mut rng()).unwrap();
        let b = g.pwe_hunting_and_pecking(&ADDR2, &ADDR1, PW, &mut rng()).unwrap();
        let c = g.pwe_hunting_and_pecking(&ADDR1, &ADDR2, b"another password", &mut rng()).unwrap();
        assert_eq!(a, b, "group {}", g.id());
        assert_ne!(a, c, "group {}", g.id());
        assert!(g.valid_element(&a));
        assert_eq!(a.len(), 2 * g.prime_len());
    }
}

/// (group, u, Q.x, Q.y): map_to_curve(u) of RFC 9380 Appendix J.1.1 (P256_XMD:SHA-256_SSWU_RO_),
/// J.2.1 (P384_XMD:SHA-384_SSWU_RO_) and J.3.1 (P521_XMD:SHA-512_SSWU_RO_): Q0 = map(u[0]),
/// Q1 = map(u[1]) for each message.
const RFC9380_SSWU: &[(u16, &str, &str, &str)] = &[
    (19, "ad5342c66a6dd0ff080df1da0ea1c04b96e0330dd89406465eeba11582515009", "ab640a12220d3ff283510ff3f4b1953d09fad35795140b1c5d64f313967934d5", "dccb558863804a881d4fff3455716c836cef230e5209594ddd33d85c565b19b1"),
    (19, "8c0f1d43204bd6f6ea70ae8013070a1518b43873bcd850aafa0a9e220e2eea5a", "51cce63c50d972a6e51c61334f0f4875c9ac1cd2d3238412f84e31da7d980ef5", "b45d1a36d00ad90e5ec7840a60a4de411917fbe7c82c3949a6e699e5a1b66aac"),
    (19, "afe47f2ea2b10465cc26ac403194dfb68b7f5ee865cda61e9f3e07a537220af1", "5219ad0ddef3cc49b714145e91b2f7de6ce0a7a7dc7406c7726c7e373c58cb48", "7950144e52d30acbec7b624c203b1996c99617d0b61c2442354301b191d93ecf"),
    (19, "379a27833b0bfe6f7bdca08e1e83c760bf9a338ab335542704edcd69ce9e46e0", "019b7cb4efcfeaf39f738fe638e31d375ad6837f58a852d032ff60c69ee3875f", "589a62d2b22357fed5449bc38065b760095ebe6aeac84b01156ee4252715446e"),
    (19, "0fad9d125a9477d55cf9357105b0eb3a5c4259809bf87180aa01d651f53d312c", "a17bdf2965eb88074bc01157e644ed409dac97cfcf0c61c998ed0fa45e79e4a2", "4f1bc80c70d411a3cc1d67aeae6e726f0f311639fee560c7f5a664554e3c9c2e"),
    (19, "b68597377392cd3419d8fcc7d7660948c8403b19ea78bbca4b133c9d2196c0fb", "7da48bb67225c1a17d452c983798113f47e438e4202219dd0715f8419b274d66", "b765696b2913e36db3016c47edb99e24b1da30e761a8a3215dc0ec4d8f96e6f9"),
    (19, "3bbc30446f39a7befad080f4d5f32ed116b9534626993d2cc5033f6f8d805919", "c76aaa823aeadeb3f356909cb08f97eee46ecb157c1f56699b5efebddf0e6398", "776a6f45f528a0e8d289a4be12c4fab80762386ec644abf2bffb9b627e4352b1"),
    (19, "76bb02db019ca9d3c1e02f0c17f8baf617bbdae5c393a81d9ce11e3be1bf1d33", "418ac3d85a5ccc4ea8dec14f750a3a9ec8b85176c95a7022f391826794eb5a75", "fd6604f69e9d9d2b74b072d14ea13050db72c932815523305cb9e807cc900aff"),
    (19, "4ebc95a6e839b1ae3c63b847798e85cb3c12d3817ec6ebc10af6ee51adb29fec", "d88b989ee9d1295df413d4456c5c850b8b2fb0f5402cc5c4c7e815412e926db8", "bb4a1edeff506cf16def96afff41b16fc74f6dbd55c2210e5b8f011ba32f4f40"),
    (19, "4e21af88e22ea80156aff790750121035b3eefaa96b425a8716e0d20b4e269ee", "a281e34e628f3a4d2a53fa87ff973537d68ad4fbc28d3be5e8d9f6a2571c5a4b", "f6ed88a7aab56a488100e6f1174fa9810b47db13e86be999644922961206e184"),
    (20, "25c8d7dc1acd4ee617766693f7f8829396065d1b447eedb155871feffd9c6653279ac7e5c46edb7010a0e4ff64c9f3b4", "e4717e29eef38d862bee4902a7d21b44efb58c464e3e1f0d03894d94de310f8ffc6de86786dd3e15a1541b18d4eb2846", "6b95a6e639822312298a47526bb77d9cd7bcf76244c991c8cd70075e2ee6e8b9a135c4a37e3c0768c7ca871c0ceb53d4"),
    (20, "59428be4ed69131df59a0c6a8e188d2d4ece3f1b2a3a02602962b47efa4d7905945b1e2cc80b36aa35c99451073521ac", "509527cfc0750eedc53147e6d5f78596c8a3b7360e0608e2fab0563a1670d58d8ae107c9f04bcf90e89489ace5650efd", "33337b13cb35e173fdea4cb9e8cce915d836ff57803dbbeb7998aa49d17df2ff09b67031773039d09fbd9305a1566bc4"),
    (20, "53350214cb6bef0b51abb791b1c4209a2b4c16a0c67e1ab1401017fad774cd3b3f9a8bcdf7f6229dd8dd5a075cb149a0", "fc853b69437aee9a19d5acf96a4ee4c5e04cf7b53406dfaa2afbdd7ad2351b7f554e4bbc6f5db4177d4d44f933a8f6ee", "7e042547e01834c9043b10f3a8221c4a879cb156f04f72bfccab0c047a304e30f2aa8b2e260d34c4592c0c33dd0c6482"),
    (20, "c0473083898f63e03f26f14877a2407bd60c75ad491e7d26cbc6cc5ce815654075ec6b6898c7a41d74ceaf720a10c02e", "57912293709b3556b43a2dfb137a315d256d573b82ded120ef8c782d607c05d930d958e50cb6dc1cc480b9afc38c45f1", "de9387dab0eef0bda219c6f168a92645a84665c4f2137c14270fb424b7532ff84843c3da383ceea24c47fa343c227bb8"),
    (20, "aab7fb87238cf6b2ab56cdcca7e028959bb2ea599d34f68484139dde85ec6548a6e48771d17956421bdb7790598ea52e", "0ceece45b73f89844671df962ad2932122e878ad2259e650626924e4e7f132589341dec1480ebcbbbe3509d11fb570b7", "fafd71a3115298f6be4ae5c6dfc96c400cfb55760f185b7b03f3fa45f3f91eb65d27628b3c705cafd0466fafa54883ce"),
    (20, "26e8d833552d7844d167833ca5a87c35bcfaa5a0d86023479fb28e5cd6075c18b168bf1f5d2a0ea146d057971336d8d1", "dea1be8d3f9be4cbf4fab9d71d549dde76875b5d9b876832313a083ec81e528cbc2a0a1d0596b3bcb0ba77866b129776", "eb15fe71662214fb03b65541f40d3eb0f4cf5c3b559f647da138c9f9b7484c48a08760e02c16f1992762cb7298fa52cf"),
    (20, "04c00051b0de6e726d228c85bf243bf5f4789efb512b22b498cde3821db9da667199b74bd5a09a79583c6d353a3bb41c", "051a22105e0817a35d66196338c8d85bd52690d79bba373ead8a86dd9899411513bb9f75273f6483395a7847fb21edb4", "f168295c1bbcff5f8b01248e9dbc885335d6d6a04aea960f7384f746ba6502ce477e624151cc1d1392b00df0f5400c06"),
    (20, "97580f218255f899f9204db64cd15e6a312cb4d8182375d1e5157c8f80f41d6a1a4b77fb1ded9dce56c32058b8d5202b", "6ad7bc8ed8b841efd8ad0765c8a23d0b968ec9aa360a558ff33500f164faa02bee6c704f5f91507c4c5aad2b0dc5b943", "47313cc0a873ade774048338fc34ca5313f96bbf6ae22ac6ef475d85f03d24792dc6afba8d0b4a70170c1b4f0f716629"),
    (20, "480cb3ac2c389db7f9dac9c396d2647ae946db844598971c26d1afd53912a1491199c0a5902811e4b809c26fcd37a014", "42e6666f505e854187186bad3011598d9278b9d6e3e4d2503c3d236381a56748dec5d139c223129b324df53fa147c4df", "8ee51dbda46413bf621838cc935d18d617881c6f33f3838a79c767a1e5618e34b22f79142df708d2432f75c7366c8512"),
    (20, "d28435eb34680e148bf3908536e42231cba9e1f73ae2c6902a222a89db5c49c97db2f8fa4d4cd6e424b17ac60bdb9bb6", "4ff01ceeba60484fa1bc0d825fe1e5e383d8f79f1e5bb78e5fb26b7a7ef758153e31e78b9d60ce75c5e32e43869d4e12", "0f84b978fac8ceda7304b47e229d6037d32062e597dc7a9b95bcd9af441f3c56c619a901d21635f9ec6ab4710b9fcd0e"),
    (21, "01e5f09974e5724f25286763f00ce76238c7a6e03dc396600350ee2c4135fb17dc555be99a4a4bae0fd303d4f66d984ed7b6a3ba386093752a855d26d559d69e7e9e", "00b70ae99b6339fffac19cb9bfde2098b84f75e50ac1e80d6acb954e4534af5f0e9c4a5b8a9c10317b8e6421574bae2b133b4f2b8c6ce4b3063da1d91d34fa2b3a3c", "007f368d98a4ddbf381fb354de40e44b19e43bb11a1278759f4ea7b485e1b6db33e750507c071250e3e443c1aaed61f2c28541bb54b1b456843eda1eb15ec2a9b36e"),
    (21, "00ae593b42ca2ef93ac488e9e09a5fe5a2f6fb330d18913734ff602f2a761fcaaf5f596e790bcc572c9140ec03f6cccc38f767f1c1975a0b4d70b392d95a0c7278aa", "01143d0e9cddcdacd6a9aafe1bcf8d218c0afc45d4451239e821f5d2a56df92be942660b532b2aa59a9c635ae6b30e803c45a6ac871432452e685d661cd41cf67214", "00ff75515df265e996d702a5380defffab1a6d2bc232234c7bcffa433cd8aa791fbc8dcf667f08818bffa739ae25773b32073213cae9a0f2a917a0b1301a242dda0c"),
    (21, "003d00c37e95f19f358adeeaa47288ec39998039c3256e13c2a4c00a7cb61a34c8969472960150a27276f2390eb5e53e47ab193351c2d2d9f164a85c6a5696d94fe8", "01b254e1c99c835836f0aceebba7d77750c48366ecb07fb658e4f5b76e229ae6ca5d271bb0006ffcc42324e15a6d3daae587f9049de2dbb0494378ffb60279406f56", "01845f4af72fc2b1a5a2fe966f6a97298614288b456cfc385a425b686048b25c952fbb5674057e1eb055d04568c0679a8e2dda3158dc16ac598dbb1d006f5ad915b0"),
    (21, "01f3cbd3df3893a45a2f1fecdac4d525eb16f345b03e2820d69bc580f5cbe9cb89196fdf720ef933c4c0361fcfe29940fd0db0a5da6bafb0bee8876b589c41365f15", "007f08e813c620e527c961b717ffc74aac7afccb9158cebc347d5715d5c2214f952c97e194f11d114d80d3481ed766ac0a3dba3eb73f6ff9ccb9304ad10bbd7b4a36", "0022468f92041f9970a7cc025d71d5b647f822784d29ca7b3bc3b0829d6bb8581e745f8d0cc9dc6279d0450e779ac2275c4c3608064ad6779108a7828ebd9954caeb"),
    (21, "00183ee1a9bbdc37181b09ec336bcaa34095f91ef14b66b1485c166720523dfb81d5c470d44afcb52a87b704dbc5c9bc9d0ef524dec29884a4795f55c1359945baf3", "0021482e8622aac14da60e656043f79a6a110cbae5012268a62dd6a152c41594549f373910ebed170ade892dd5a19f5d687fae7095a461d583f8c4295f7aaf8cd7da", "0177e2d8c6356b7de06e0b5712d8387d529b848748e54a8bc0ef5f1475aa569f8f492fa85c3ad1c5edc51faf7911f11359bfa2a12d2ef0bd73df9cb5abd1b101c8b1"),
    (21, "00504064fd137f06c81a7cf0f84aa7e92b6b3d56c2368f0a08f44776aa8930480da1582d01d7f52df31dca35ee0a7876500ece3d8fe0293cd285f790c9881c998d5e", "00abeafb16fdbb5eb95095678d5a65c1f293291dfd20a3751dbe05d0a9bfe2d2eef19449fe59ec32cdd4a4adc3411177c0f2dffd0159438706159a1bbd0567d9b3d0", "007cc657f847db9db651d91c801741060d63dab4056d0a1d3524e2eb0e819954d8f677aa353bd056244a88f00017e00c3ce8beeedb4382d83d74418bd48930c6c182"),
    (21, "0159871e222689aad7694dc4c3480a49807b1eedd9c8cb4ae1b219d5ba51655ea5b38e2e4f56b36bf3e3da44a7b139849d28f598c816fe1bc7ed15893b22f63363c3", "0005eac7b0b81e38727efcab1e375f6779aea949c3e409b53a1d37aa2acbac87a7e6ad24aafbf3c52f82f7f0e21b872e88c55e17b7fa21ce08a94ea2121c42c2eb73", "00a173b6a53a7420dbd61d4a21a7c0a52de7a5c6ce05f31403bef747d16cc8604a039a73bdd6e114340e55dacd6bea8e217ffbadfb8c292afa3e1b2afc839a6ce7bb"),
    (21, "004ef0cffd475152f3858c0a8ccbdf7902d8261da92744e98df9b7fadb0a5502f29c5086e76e2cf498f47321434a40b1504911552ce44ad7356a04e08729ad9411f5", "01881e3c193a69e4d88d8180a6879b74782a0bc7e529233e9f84bf7f17d2f319c36920ffba26f9e57a1e045cc7822c834c239593b6e142a694aa00c757b0db79e5e8", "01558b16d396d866e476e001f2dd0758927655450b84e12f154032c7c2a6db837942cd9f44b814f79b4d729996ced61eec61d85c675139cbffe3fbf071d2c21cfecb"),
    (21, "0033d06d17bc3b9a3efc081a05d65805a14a3050a0dd4dfb4884618eb5c73980a59c5a246b18f58ad022dd3630faa22889fbb8ba1593466515e6ab4aeb7381c26334", "00041f6eb92af8777260718e4c22328a7d74203350c6c8f5794d99d5789766698f459b83d5068276716f01429934e40af3d1111a22780b1e07e72238d2207e5386be", "001c712f0182813942b87cab8e72337db017126f52ed797dd234584ac9ae7e80dfe7abea11db02cf1855312eae1447dbaecc9d7e8c880a5e76a39f6258074e1bc2e0"),
    (21, "0092290ab99c3fea1a5b8fb2ca49f859994a04faee3301cefab312d34227f6a2d0c3322cf76861c6a3683bdaa2dd2a6daa5d6906c663e065338b2344d20e313f1114", "0125c0b69bcf55eab49280b14f707883405028e05c927cd7625d4e04115bd0e0e6323b12f5d43d0d6d2eff16dbcf244542f84ec058911260dc3bb6512ab5db285fbd", "008bddfb803b3f4c761458eb5f8a0aee3e1f7f68e9d7424405fa69172919899317fb6ac1d6903a432d967d14e0f80af63e7035aaae0c123e56862ce969456f99f102"),
];

#[test]
fn rfc9380_sswu_vectors() {
    assert_eq!(RFC9380_SSWU.len(), 30);
    for (gid, u, x, y) in RFC9380_SSWU {
        let g = Group::from_id(*gid).unwrap();
        let q = g.sswu(&h(u)).unwrap();
        assert_eq!(hex::encode(&q[..g.prime_len()]), *x, "group {gid} u {u}");
        assert_eq!(hex::encode(&q[g.prime_len()..]), *y, "group {gid} u {u}");
    }
}

/// The prime of each group, big endian (FIPS 186-4 D.1.2).
fn prime(g: Group) -> Vec<u8> {
    match g {
        Group::P256 => h("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff"),
        Group::P384 => h("fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffff0000000000000000ffffffff"),
        Group::P521 => {
            let mut p = vec![0x01];
            p.extend(std::iter::repeat_n(0xff, 65));
            p
        }
    }
}

/// The order of each group, big endian (FIPS 186-4 D.1.2).
fn order(g: Group) -> Vec<u8> {
    match g {
        Group::P256 => h("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551"),
        Group::P384 => h("ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973"),
        Group::P521 => h("01ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff\
                          fa51868783bf2f966b7fcc0148f709a5d03bb5c9b8899c47aebb6fb71e91386409"),
    }
}

#[test]
fn scalar_and_element_validation() {
    for g in [Group::P256, Group::P384, Group::P521] {
        let n = g.prime_len();
        let pwe = g.pwe_hunting_and_pecking(&ADDR1, &ADDR2, PW, &mut rng()).unwrap();
        // 1 < scalar < r (12.4.5.4).
        let mut one = vec![0u8; n];
        one[n - 1] = 1;
        let mut two = vec![0u8; n];
        two[n - 1] = 2;
        assert!(!g.valid_scalar(&vec![0u8; n]));
        assert!(!g.valid_scalar(&one));
        assert!(g.valid_scalar(&two));
        assert!(!g.valid_scalar(&order(g)));
        let mut rm1 = order(g);
        *rm1.last_mut().unwrap() -= 1;
        assert!(g.valid_scalar(&rm1));
        assert!(!g.valid_scalar(&two[1..]), "short scalar");
        // Element: on the curve, coordinates < p.
        assert!(g.valid_element(&pwe));
        let mut off = pwe.to_vec();
        off[2 * n - 1] ^= 1;
        assert!(!g.valid_element(&off), "point off the curve");
        assert!(!g.valid_element(&vec![0u8; 2 * n]), "(0, 0)");
        // x + p has the same residue as x but is not a valid encoding.
        let mut big = prime(g);
        big.extend_from_slice(&pwe[n..]);
        assert!(!g.valid_element(&big), "x = p");
        assert!(!g.valid_element(&pwe[..2 * n - 1]), "short element");
    }
}

#[test]
fn reflection_is_silently_discarded_and_bad_peer_values_refused() {
    for g in [Group::P256, Group::P384, Group::P521] {
        let pwe = g.pwe_hunting_and_pecking(&ADDR1, &ADDR2, PW, &mut rng()).unwrap();
        let mut ex = Exchange::new(g, pwe.clone(), false, ADDR1, ADDR2, &mut rng()).unwrap();
        let own = ex.commit_msg(None, None);
        assert_eq!(ex.process_commit(&own), Err(CommitError::SilentlyDiscard));
        assert!(ex.keys().is_none());
        let mut bad = own.clone();
        bad.element[5] ^= 0x40;
        assert_eq!(ex.process_commit(&bad), Err(CommitError::Status(status::UNSPECIFIED_FAILURE)));
        let mut bad = own.clone();
        bad.scalar = order(g);
        assert_eq!(ex.process_commit(&bad), Err(CommitError::Status(status::UNSPECIFIED_FAILURE)));
        let mut other = own.clone();
        other.group = if g == Group::P256 { 20 } else { 19 };
        assert_eq!(ex.process_commit(&other), Err(CommitError::Status(status::FINITE_CYCLIC_GROUP_NOT_SUPPORTED)));
        // A peer commit of the same PWE: both ends reach the same keys and confirm.
        let mut peer = Exchange::new(g, pwe, false, ADDR2, ADDR1, &mut rng_seed(7)).unwrap();
        let pc = peer.commit_msg(None, None);
        ex.process_commit(&pc).unwrap();
        peer.process_commit(&ex.commit_msg(None, None)).unwrap();
        assert_eq!(ex.keys().unwrap().pmk(), peer.keys().unwrap().pmk());
        assert_eq!(ex.keys().unwrap().pmkid(), peer.keys().unwrap().pmkid());
        let c = ex.confirm().unwrap();
        assert!(peer.verify_confirm(&c));
        let mut forged = c.clone();
        forged.confirm[0] ^= 1;
        assert!(!peer.verify_confirm(&forged));
    }
}

#[test]
fn commit_parse_rejects_unknown_group_and_short_bodies() {
    assert_eq!(Commit::parse(&[0x18, 0x00, 1, 2, 3], false), Err(status::FINITE_CYCLIC_GROUP_NOT_SUPPORTED));
    assert_eq!(Commit::parse(&[0x13], false), Err(status::UNSPECIFIED_FAILURE));
    assert_eq!(Commit::parse(&[0x13, 0x00, 1, 2, 3], false), Err(status::UNSPECIFIED_FAILURE));
    assert_eq!(Commit::parse(&vec![0x13; 5000], false), Err(status::UNSPECIFIED_FAILURE));
}
