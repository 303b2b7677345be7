// Bessel functions of the first and second kind of orders 0 and 1 of the
// libdevice compositions, in float64 (float32 callers round once): j0, j1,
// y0, y1.
//
//   |x| <= 8: Chebyshev interpolants (24 terms, coefficients from mpmath at
//     160 bits) on pieces of [0, 8], each of f(x) / (x - z) for the zero z
//     nearest the piece, times x - z in double-double (x - z.hi is exact):
//     relative accuracy survives next to the zeros. Near 0, y0 = (2/pi) ln(x) j0 + R0 and y1 =
//     (2/pi) ln(x) j1 - 2/(pi x) + x R1 with R0, R1 interpolated (they are entire).
//   |x| > 8: Hankel's form sqrt(2/(pi x)) (P cos chi -+ Q sin chi),
//     chi = x - (2 nu + 1) pi/4, with P and Q/t interpolated in t = 8/x
//     (20 terms) and cos chi, sin chi from sin x and cos x, whose argument
//     reduction (libdevice_trig.cpp) is exact for every x.
// Within a few ulp below 8 (libdevice: 7) and 1e-16 absolute beyond
// (libdevice: 5e-12).
#include <cmath>

#include "frontend/libdevice_math.h"

namespace tessera::frontend::ld {
namespace {

struct Piece {
  double a, b;      // the interval
  double zhi, zlo;  // its zero, a double-double (when hasZero)
  bool hasZero;
  double c[24];  // Chebyshev coefficients
};

// Coefficients generated with mpmath at 160 bits.
// J0: 4 pieces on [0, 8].
constexpr Piece kJ0[4] = {
    {0x0.0p+0,
     0x1.8000000000000p+0,
     0x0.0p+0,
     0x0.0p+0,
     false,
     {0x1.9e85347f86e4ep-1,   -0x1.fceb35703d07ep-3,   -0x1.bbb2ccd521044p-5,
      0x1.22ad297ca2a11p-8,   0x1.eac32df429b60p-12,   -0x1.b6108381a4201p-16,
      -0x1.e6952bb03439ap-20, 0x1.4948465c3a907p-24,   0x1.104bc078b5c85p-28,
      -0x1.28bce8e5c6489p-33, -0x1.86c20703a55fdp-38,  0x1.6462ad3899703p-43,
      0x1.85cbd0bc2937bp-48,  -0x1.31a75350dd132p-53,  -0x1.1dd9f56bf1a1dp-58,
      0x1.89279a0de878bp-64,  0x1.411eb21fc8848p-69,   -0x1.89495ab1db634p-75,
      -0x1.1d1c658df332fp-80, 0x1.3ab67b1a1c5d6p-86,   0x1.9a2c1c8012ffbp-92,
      -0x1.9c139573fecdbp-98, -0x1.e7c13e8698f80p-104, 0x1.c1b83349149dep-110}},
    {0x1.8000000000000p+0,
     0x1.f333333333333p+1,
     0x1.33d152e971b40p+1,
     -0x1.0f539d7da258ep-53,
     true,
     {-0x1.cc407bc8b9eafp-2,  0x1.3926f4fa7af3fp-3,   0x1.0bcd395dd0161p-5,
      -0x1.26c4e919df758p-8,  -0x1.c8979e7a990b2p-12, 0x1.a11a2f1ef0c59p-15,
      0x1.966985989fd3bp-19,  -0x1.3c40bf512654fp-22, -0x1.bc57957de7a8ap-27,
      0x1.2cb86e42707eap-30,  0x1.48715c81b3951p-35,  -0x1.89091322112fbp-39,
      -0x1.5df9b381a1645p-44, 0x1.77255368758e0p-48,  0x1.196d214bed8c4p-53,
      -0x1.111e8434c597dp-57, -0x1.6195f1cb0e0cfp-63, 0x1.396e606a8ea1ep-67,
      0x1.648ec6e72d695p-73,  -0x1.22d7affb8681dp-77, -0x1.26e8d1f8b28a0p-83,
      0x1.bd854881e4fbdp-88,  0x1.97509a834c1bep-94,  -0x1.1e9c26d09f681p-98}},
    {0x1.f333333333333p+1,
     0x1.c000000000000p+2,
     0x1.6148f5b2c2e45p+2,
     0x1.75054cd60a517p-54,
     true,
     {0x1.2100fb999297cp-2,   -0x1.a78d59a7fef7dp-6,  -0x1.de1be13792364p-5,
      0x1.b08bedccf1188p-9,   0x1.964df9c794a9cp-10,  -0x1.50db021e3258bp-14,
      -0x1.48eb7a2e72f1fp-16, 0x1.e7f13447448b5p-21,  0x1.3b541e116836dp-23,
      -0x1.a33c838110b61p-28, -0x1.9182b4236d831p-31, 0x1.e1a89058f305fp-36,
      0x1.6cdcab5963c4fp-39,  -0x1.8de347195eddfp-44, -0x1.f16cd82f285e6p-48,
      0x1.f09d6a08f2dabp-53,  0x1.07dce96a600f7p-56,  -0x1.e5709aafd379ap-62,
      -0x1.c02b3466d3cc4p-66, 0x1.7e02589f3a591p-71,  0x1.3796865d0da8bp-75,
      -0x1.eeb213abf951dp-81, -0x1.693edbc7c7fe7p-85, 0x1.0c826da745c5cp-90}},
    {0x1.c000000000000p+2,
     0x1.0000000000000p+3,
     0x1.14eb56cccdecap+3,
     -0x1.51970714c7c25p-52,
     true,
     {-0x1.cfb4d4e0cfdc0p-3,   -0x1.4e08e77d238c4p-5,  0x1.2192b8c6cbb08p-8,
      0x1.c9789ca57c0e7p-13,   -0x1.caf0dac44eb9fp-17, -0x1.b47638f799ed2p-22,
      0x1.51f52db6aeceap-26,   0x1.b843913de718ep-32,  -0x1.1f2840b3a9a63p-36,
      -0x1.16b33bf36d714p-42,  0x1.3e7730e0be058p-47,  0x1.e70f9065abb1ep-54,
      -0x1.f25b75b24aeb8p-59,  -0x1.3848ada18129dp-65, 0x1.223b109064f2ap-70,
      0x1.32c49a8af19c7p-77,   -0x1.05a12e3a0cc18p-82, -0x1.dccc12c2f8b5dp-90,
      0x1.7818b6a007d64p-95,   0x1.2c8f0e139eaf1p-102, -0x1.b94f83a9a512ap-108,
      -0x1.3999f96d15d47p-115, 0x1.aecc351e35040p-121, 0x1.1354897342aabp-128}},
};
// J1: 3 pieces on [0, 8].
constexpr Piece kJ1[3] = {
    {0x0.0p+0,
     0x1.0000000000000p+1,
     0x0.0p+0,
     0x0.0p+0,
     false,
     {0x1.aae6025f07c22p-2,   -0x1.ba97adf240fd1p-4,  -0x1.77be6905e45c2p-6,
      0x1.275e4ebee5d30p-9,   0x1.d3598ef256b3ep-13,  -0x1.265558634b0c9p-16,
      -0x1.2a38b88ef7dcap-20, 0x1.38f39dc606494p-24,  0x1.cf00971b5fb92p-29,
      -0x1.a03105aba51c9p-33, -0x1.e3220334b3248p-38, 0x1.7bbb308f67f8cp-42,
      0x1.69fc936c41498p-47,  -0x1.f975d10842a67p-52, -0x1.984738d38e489p-57,
      0x1.006351eecf2a5p-61,  0x1.6711498ac3f5dp-67,  -0x1.99bfb82e3212cp-72,
      -0x1.fa34be41741a2p-78, 0x1.08a15fdae76b0p-82,  0x1.245b62440eb53p-88,
      -0x1.1a09811d5ca30p-93, -0x1.19b9aa29c8db6p-99, 0x1.f8baa00cfbb7ap-105}},
    {0x1.0000000000000p+1,
     0x1.599999999999ap+2,
     0x1.ea75575af6f09p+1,
     -0x1.60155a9d1b256p-53,
     true,
     {-0x1.57f8aa02b3058p-2,  0x1.a611689479268p-5,   0x1.21109a5a56348p-4,
      -0x1.1a2aee11dc8aep-8,  -0x1.23ed22416595ep-9,  0x1.d2afb43e7c723p-14,
      0x1.1ed20fde18c41p-15,  -0x1.8352a2a83d779p-20, -0x1.4ec18978c933ap-22,
      0x1.86f251520a407p-27,  0x1.034dd501d613ep-29,  -0x1.0aa4c86504082p-34,
      -0x1.1e4d4c2d4b297p-37, 0x1.06e86722599a9p-42,  0x1.d9989f6b5257dp-46,
      -0x1.88cb7ee14724ap-51, -0x1.3073a0b512ec2p-54, 0x1.cc626fbcf72efp-60,
      0x1.39049b85f8707p-63,  -0x1.b2dd627431d3ep-69, -0x1.073e921991e2fp-72,
      0x1.52341b51f1f70p-78,  0x1.70ea61a17e217p-82,  -0x1.b9429c9a89c2bp-88}},
    {0x1.599999999999ap+2,
     0x1.0000000000000p+3,
     0x1.c0ff5f3b47250p+2,
     -0x1.b226d9d243827p-54,
     true,
     {0x1.0da5dd2a35baep-2,   0x1.8dbd6829391c7p-7,   -0x1.3777afe0b6ccap-5,
      0x1.5cdda0a9dde1ap-13,  0x1.8bac879b5171fp-11,  -0x1.06d5a30241682p-17,
      -0x1.d7a81d37b6f35p-18, 0x1.65a1260f06dabp-24,  0x1.4884cfa420349p-25,
      -0x1.f5e6b24842db8p-32, -0x1.2d3b1e10c0881p-33, 0x1.bd28a18336dbdp-40,
      0x1.87ed2c1bfbc4ap-42,  -0x1.13c0b7574db5cp-48, -0x1.7cf9d1393f2acp-51,
      0x1.fb603b06b5b86p-58,  0x1.1f5e5349930d2p-60,  -0x1.698c5dd6cb9e4p-67,
      -0x1.5a5029fde7c18p-70, 0x1.9bb2a8a152d00p-77,  0x1.552510596ea27p-80,
      -0x1.7fa95145f3fe3p-87, -0x1.17de4f27cf731p-90, 0x1.2a721455ad69ep-97}},
};
// Y0: 5 pieces on [0, 8].
constexpr Piece kY0[5] = {
    {0x0.0p+0,
     0x1.3333333333333p-1,
     0x0.0p+0,
     0x0.0p+0,
     false,
     {-0x1.9cce9096c55abp-5,  0x1.fd01ea9b8491ap-6,    0x1.ee4ff950bc9cap-8,
      -0x1.0b6e42caa7adap-13, -0x1.039bd0a64911dp-16,  0x1.36621e40b1137p-23,
      0x1.91b9e8b6b6420p-27,  -0x1.5087044b288c7p-34,  -0x1.46a7f38a17168p-38,
      0x1.a72e05baf9dd0p-46,  0x1.48980ea81f85bp-50,   -0x1.5bb4f4fef6fe3p-58,
      -0x1.c1f547bc1278bp-63, 0x1.92d3565a59c8fp-71,   0x1.becb127fce240p-76,
      -0x1.5ad3fc91fe32cp-84, -0x1.50952e5a51e55p-89,  0x1.cd69517523ef6p-98,
      0x1.8e02ed6f6dc72p-103, -0x1.e8954e83e6cd8p-112, -0x1.7b4a788578fbcp-117,
      0x1.a59a44a6762abp-126, 0x1.29879a2ad2aabp-131,  -0x1.2e35ea7d55555p-140}},
    {0x1.3333333333333p-1,
     0x1.8000000000000p+0,
     0x1.c982eb8d417eap-1,
     0x1.ea9d270347f83p-56,
     true,
     {0x1.a57d1da7806fbp-1,   -0x1.a6d3a06ee6014p-3,  0x1.1367ce3c4300dp-6,
      -0x1.cb3dc15b2728ep-9,  0x1.7327cb4b251dep-11,  -0x1.17f106a80a997p-13,
      0x1.b2438ca028087p-16,  -0x1.581105b0c5a40p-18, 0x1.1469aeaab2b02p-20,
      -0x1.c13079aefe518p-23, 0x1.706eb8710ed7fp-25,  -0x1.30950102562a8p-27,
      0x1.faf6ccca6b2a0p-30,  -0x1.a8548688370f7p-32, 0x1.64ee08136addep-34,
      -0x1.2d8a022b242ecp-36, 0x1.ff7044c77ef04p-39,  -0x1.b332963e6b298p-41,
      0x1.73724c7d6911bp-43,  -0x1.3de63d12bd19cp-45, 0x1.10bdcc393c227p-47,
      -0x1.d500355b0fe29p-50, 0x1.9342f9236943ap-52,  -0x1.4c8bd83913eb4p-54}},
    {0x1.8000000000000p+0,
     0x1.4000000000000p+1,
     0x0.0p+0,
     0x0.0p+0,
     false,
     {0x1.e6ae0fcf81b80p-2,   0x1.d0b0f75987655p-5,   -0x1.1f2fd7196f453p-5,
      0x1.1afdd2269834ap-10,  0x1.739c4510052f5p-15,  0x1.987b964b856d0p-18,
      -0x1.12c88ef351b22p-20, 0x1.936ad0c4166b5p-24,  -0x1.5cef88a36c80dp-27,
      0x1.43ba27d940b30p-30,  -0x1.2ab9b9d56d81fp-33, 0x1.150ad120a0f93p-36,
      -0x1.02f29f3f8c8cap-39, 0x1.e71945dc8c11dp-43,  -0x1.cc9272770de0ep-46,
      0x1.b587d321bf98ep-49,  -0x1.a15ca108b8aa5p-52, 0x1.8f95eb656b7b0p-55,
      -0x1.7fd26d18528b7p-58, 0x1.71c443cb1197dp-61,  -0x1.652c64a91727cp-64,
      0x1.59d7023b0b95ap-67,  -0x1.4f878568f353bp-70, 0x1.4179d07b9fee8p-73}},
    {0x1.4000000000000p+1,
     0x1.6000000000000p+2,
     0x1.fa9534d98569cp+1,
     -0x1.f06ae7804384ep-54,
     true,
     {-0x1.5b7c6d007b196p-2,  0x1.0fabfbefe70aap-4,   0x1.e8de8a9aca0aep-5,
      -0x1.70aa13f4341bdp-8,  -0x1.47d2d341bc624p-10, 0x1.7666ce575c2c4p-14,
      0x1.20f2dbbe43d1ep-16,  -0x1.6fd53393cfe92p-20, -0x1.3fdf71e571081p-25,
      -0x1.96cffbe0cc3c2p-28, 0x1.673cf932d5506p-29,  -0x1.c2456362280a1p-32,
      0x1.2bee521b03b21p-34,  -0x1.bc1a9ac18e548p-37, 0x1.46d11a83015f0p-39,
      -0x1.de7b1f1c3cd0ap-42, 0x1.5fa676513ad42p-44,  -0x1.0351e7071186fp-46,
      0x1.7f70c3490587bp-49,  -0x1.1c2733b1f7341p-51, 0x1.a612887a684d2p-54,
      -0x1.3a15efb21af22p-56, 0x1.d3c99eb6587fcp-59,  -0x1.518acb603ed9fp-61}},
    {0x1.6000000000000p+2,
     0x1.0000000000000p+3,
     0x1.c581dc4e72103p+2,
     -0x1.9774a495f56cfp-54,
     true,
     {0x1.0f2d81eb86275p-2,   0x1.f154a7edf7794p-7,   -0x1.2874bbe64e0a2p-5,
      0x1.85964ccd58d8fp-14,  0x1.628bd4d64f2d4p-11,  -0x1.000f3da7b2213p-17,
      -0x1.836c4c1efac06p-18, 0x1.4141ebf008395p-24,  0x1.f24ad359373cfp-26,
      -0x1.b002d9f1745b3p-32, -0x1.9f792b1f909f1p-34, 0x1.48c5c39107316p-40,
      0x1.005efa74e6577p-42,  -0x1.ce01ef5d0ceffp-49, -0x1.8ff381023f9e0p-52,
      0x1.ea6511c3a5793p-61,  0x1.f89b6f2ad3479p-61,  -0x1.49fdb9fc333bfp-65,
      0x1.3233c87a5a7d7p-69,  -0x1.114495881bcdap-72, 0x1.9b19a1e27e971p-76,
      -0x1.20559702f88e1p-79, 0x1.9bcb363bc843dp-83,  -0x1.262792b51cf0ap-86}},
};
// Y1: 5 pieces on [0, 8].
constexpr Piece kY1[5] = {
    {0x0.0p+0,
     0x1.3333333333333p+0,
     0x0.0p+0,
     0x0.0p+0,
     false,
     {-0x1.58c1155e25873p-3,  0x1.2b4399f22a45cp-5,   0x1.164bb71616bd7p-7,
      -0x1.7a1ab19fe0d79p-12, -0x1.59bc68e2651fdp-15, 0x1.3d53621a4d4e2p-20,
      0x1.7fa824c879cf4p-24,  -0x1.0e42e18b899d1p-29, -0x1.e7809fd876102p-34,
      0x1.18281d9ba7bbbp-39,  0x1.92bdaaa99d583p-44,  -0x1.87d0853a826bcp-50,
      -0x1.d408a4c8af4dcp-55, 0x1.8b3318c29f942p-61,  0x1.93baffd28db00p-66,
      -0x1.2d5653d9ed63ep-72, -0x1.0ce0241b86b81p-77, 0x1.67c7532b95834p-84,
      0x1.1ceda51375ebep-89,  -0x1.598e4d16c31c4p-96, -0x1.ebfb8ccb523bdp-102,
      0x1.10d6cc375df8dp-108, 0x1.60c3b557292a6p-114, -0x1.688edcab10cc0p-121}},
    {0x1.3333333333333p+0,
     0x1.0000000000000p+1,
     0x1.193bed4dff243p+1,
     -0x1.bd1e50d219bfdp-55,
     true,
     {0x1.2a2fa07ed57ffp-1,   -0x1.41d135e27c767p-5,  0x1.bbf1a154f8c95p-12,
      -0x1.6f80b8502e09fp-11, 0x1.a434fa4778f11p-14,  -0x1.8efa6259bbf76p-17,
      0x1.97c8d2b3355e0p-20,  -0x1.a323f16948847p-23, 0x1.ac01fa5835d36p-26,
      -0x1.b45586d7ab8e9p-29, 0x1.bc7ae14c8eb6cp-32,  -0x1.c480aebcc0f20p-35,
      0x1.cc7881800e9fcp-38,  -0x1.d46f1e3306876p-41, 0x1.dc6d2eded12fap-44,
      -0x1.e478e5067b2eep-47, 0x1.ec96d5301ff1bp-50,  -0x1.f4ca7be5e832cp-53,
      0x1.fd16943bb1116p-56,  -0x1.02bea8875eeb4p-58, 0x1.070040c9d60bfp-61,
      -0x1.0b50920a32c8ep-64, 0x1.0f9f036a17dc1p-67,  -0x1.0facd383107a6p-70}},
    {0x1.0000000000000p+1,
     0x1.e666666666666p+1,
     0x1.193bed4dff243p+1,
     -0x1.bd1e50d219bfdp-55,
     true,
     {0x1.a47a6a90dc475p-2,   -0x1.25eec1dd63431p-3,  -0x1.4e8057c9dafeap-7,
      0x1.4db82d29c4eb8p-10,  0x1.d4485abbfe281p-13,  -0x1.0b83eff9c2f07p-15,
      0x1.74005b7f39a3dp-19,  -0x1.f9650fa442d22p-22, 0x1.65f3c5d28ea15p-24,
      -0x1.c942dfe438187p-27, 0x1.22baa4053ab89p-29,  -0x1.73faabd9172b9p-32,
      0x1.db79f67d92917p-35,  -0x1.2f8644d8cd7a7p-37, 0x1.834a39dee25cdp-40,
      -0x1.edf5f7218c772p-43, 0x1.3ae585c9496a8p-45,  -0x1.9160e45cfd319p-48,
      0x1.ff7fd467dab55p-51,  -0x1.45dbca4252aa7p-53, 0x1.9f205082b9dc1p-56,
      -0x1.08637ae4b37b5p-58, 0x1.50885c521e3acp-61,  -0x1.a201039cea9adp-64}},
    {0x1.e666666666666p+1,
     0x1.c000000000000p+2,
     0x1.5b7fe4e87b02ep+2,
     0x1.dfe7bac228e8cp-52,
     true,
     {-0x1.1f66b5965e25cp-2,  0x1.17e4a09dfd201p-5,   0x1.e23a82a32001cp-5,
      -0x1.d35dfc98fed75p-9,  -0x1.b037a92e9a5a5p-10, 0x1.5b66a09d121f7p-14,
      0x1.85cba3c1d79d8p-16,  -0x1.2552808395797p-20, -0x1.73ed76c2981ddp-23,
      0x1.81d2de8ffca9bp-28,  0x1.56e81a5c0677ap-30,  -0x1.4b6b6e927b3cep-34,
      0x1.5595809b3bb15p-39,  -0x1.d0a6377124583p-41, 0x1.5dad703434ea9p-43,
      -0x1.9306fb79d07f9p-46, 0x1.e112cf6de1651p-49,  -0x1.26c144d3b746bp-51,
      0x1.677ba1edc9564p-54,  -0x1.b53061f99409bp-57, 0x1.09ceb9848fc08p-59,
      -0x1.4322b023bc6d2p-62, 0x1.887d6f5842dcdp-65,  -0x1.d21917c73250ap-68}},
    {0x1.c000000000000p+2,
     0x1.0000000000000p+3,
     0x1.13127ae6169b4p+3,
     0x1.479cc068d9046p-52,
     true,
     {0x1.daf4504337af8p-3,    0x1.371f2120d345ap-5,   -0x1.273c1b9401805p-8,
      -0x1.a27a4cc9eccf8p-13,  0x1.c89f75ff43761p-17,  0x1.91644365f576ap-22,
      -0x1.4ba81b36568ebp-26,  -0x1.9b13526ffc645p-32, 0x1.19520b0a5b196p-36,
      0x1.0598e0082840ep-42,   -0x1.36381e1f66fa4p-47, -0x1.d3256f1bf2e88p-54,
      0x1.ec00ad48201a9p-59,   0x1.204c559bfdf5bp-65,  -0x1.10a85c699b7aap-70,
      -0x1.58160778661b4p-77,  0x1.3520923203e87p-82,  0x1.477cb764920f5p-96,
      0x1.e66adf4f48c4fp-97,   -0x1.2c15da57827acp-99, 0x1.364bc20aeed88p-104,
      -0x1.2b42503def363p-109, 0x1.42da8bcb721dbp-114, -0x1.5ddb00e6fbd8bp-119}},
};
constexpr double kP0[20] = {
    0x1.ffcaeca0d951cp-1,   -0x1.1a1bd0f363823p-11, -0x1.1465da4f30b14p-13, 0x1.9678bf64d67d8p-20,
    0x1.544f0b44f02f6p-23,  -0x1.2624ac9eea7fbp-27, -0x1.4526bf1f46e98p-32, 0x1.211ba9eaa5bdbp-34,
    -0x1.3ae6538600205p-39, -0x1.f8a42436e7dd6p-42, 0x1.3937b121153b0p-44,  -0x1.b435122d0d909p-50,
    -0x1.0a6383900ad60p-50, 0x1.66bc8c5b6dc90p-53,  -0x1.5f0ca2cb72116p-58, -0x1.942096c3af357p-59,
    0x1.652985ce5b9c7p-61,  -0x1.8225da98ca784p-65, -0x1.65bcd99f5e341p-67, 0x1.f68889341e394p-69};
constexpr double kQOverT0[20] = {
    -0x1.fe4c923924807p-7,  0x1.20699b09419adp-14,  0x1.155688e257231p-16,  -0x1.85426bc61fbdbp-22,
    -0x1.298a8e1f88f24p-25, 0x1.89797b7a8b2d3p-29,  0x1.f5021fe364ba4p-35,  -0x1.cd8cb6a4bed7ap-36,
    0x1.b1eae3788ea96p-40,  0x1.7d406d4aa1410p-43,  -0x1.6b5cafb4a30a7p-45, 0x1.3b004b62ef3c9p-49,
    0x1.05cf2d9c9de88p-51,  -0x1.0766dcaa72021p-53, 0x1.2e0f03f9851b5p-57,  0x1.afa009ffc7e55p-60,
    -0x1.29afafa7c2d41p-61, 0x1.118db5e167ae7p-64,  0x1.249d02e82fc79p-68,  -0x1.ad23c1251e197p-69};
constexpr double kP1[20] = {
    0x1.002c672a62ceap+0,   0x1.d8632571ea849p-11,  0x1.d0fd5a82ea058p-13,  -0x1.07d6fb18f6aeep-19,
    -0x1.c0996975d2747p-23, 0x1.61448893edb56p-27,  0x1.9d624d1c3c455p-32,  -0x1.4ff6454b5bacbp-34,
    0x1.4ffd3ac8f42bbp-39,  0x1.23c0668b06ccdp-41,  -0x1.5a816c24bb2a1p-44, 0x1.9f133a5e6bb52p-50,
    0x1.29b9aaa65592fp-50,  -0x1.83db2b67c4412p-53, 0x1.5271c31d488a4p-58,  0x1.bd4eee0720306p-59,
    -0x1.7e4da22b970bbp-61, 0x1.89d05d877d61ep-65,  0x1.8aa3c1b295866p-67,  -0x1.0c3b1e433b7f2p-68};
constexpr double kQOverT1[20] = {
    0x1.7f66f921a692cp-5,   -0x1.95c440238826fp-14, -0x1.882136a5b1cd3p-16, 0x1.e05f347806deep-22,
    0x1.755da8954cc28p-25,  -0x1.cd4e2a845090ep-29, -0x1.43adcbb32680bp-34, 0x1.088ad391ee721p-35,
    -0x1.d7fb36614dd23p-40, -0x1.b84808a993bfap-43, 0x1.90b48bd59138ep-45,  -0x1.48cc3779b6b11p-49,
    -0x1.256c2f564abf8p-51, 0x1.1d0100c1f827cp-53,  -0x1.392349160498fp-57, -0x1.dfe0a4fdee911p-60,
    0x1.3f4ab51a50cf6p-61,  -0x1.1d7bb878f8bcbp-64, -0x1.4f49e9212b12ep-68, 0x1.cb93ac7477177p-69};

constexpr double kTwoOverPi = 0x1.45f306dc9c883p-1;
constexpr double kSqrtHalf = 0x1.6a09e667f3bcdp-1;

// sum c_k T_k(u) by Clenshaw's recurrence.
template <class C>
V clenshaw(const V &u, int n, C c) {
  V b1 = lit(u, 0.0), b2 = lit(u, 0.0);
  V u2 = u * 2.0;
  for (int k = n - 1; k >= 1; --k) {
    V b = fma(u2, b1, c(k) - b2);
    b2 = b1;
    b1 = b;
  }
  return fma(u, b1, c(0) - b2);
}

// The piecewise interpolant at 0 <= x <= 8: g(x) times (x - z) where the
// piece has a zero (piece 0's special form is left to the caller).
template <int N>
V pieces(const V &x, const Piece (&p)[N], V &inFirst) {
  std::vector<V> in;
  for (int i = 0; i < N; ++i) in.push_back(x >= p[i].a);
  auto pick = [&](auto field) {
    V v = lit(x, field(p[0]));
    for (int i = 1; i < N; ++i) v = sel(in[i], lit(x, field(p[i])), v);
    return v;
  };
  V a = pick([](const Piece &q) { return q.a; });
  V b = pick([](const Piece &q) { return q.b; });
  V u = (x * 2.0 - a - b) / (b - a);
  V g = clenshaw(u, 24, [&](int k) { return pick([k](const Piece &q) { return q.c[k]; }); });
  V zhi = pick([](const Piece &q) { return q.zhi; });
  V zlo = pick([](const Piece &q) { return q.zlo; });
  V has = pick([](const Piece &q) { return q.hasZero ? 1.0 : 0.0; });
  V dx = (x - zhi) - zlo;  // x - zhi is exact within a piece (Sterbenz)
  inFirst = lnot(in[1]);
  return sel(ne(has, 0.0), g * dx, g);
}

// sqrt(2/(pi x)) (P, Q) combined with cos and sin of chi = x - (2nu+1) pi/4.
V hankel(const V &x, int nu, bool second, bool fromF32) {
  V xc = sel(x > 8.0, x, lit(x, 9.0));
  V t = 8.0 / xc;
  V u = t * 2.0 - 1.0;
  V p = clenshaw(u, 20, [&](int k) { return lit(x, nu ? kP1[k] : kP0[k]); });
  V q = t * clenshaw(u, 20, [&](int k) { return lit(x, nu ? kQOverT1[k] : kQOverT0[k]); });
  DD s, c;
  sinCosDD(xc, fromF32, s, c);
  V sx = ddRound(s), cx = ddRound(c);
  // chi = x - pi/4: cos chi = (c + s)/sqrt2, sin chi = (s - c)/sqrt2;
  // chi = x - 3pi/4: cos chi = (s - c)/sqrt2, sin chi = -(s + c)/sqrt2.
  V cosChi = nu ? (sx - cx) * kSqrtHalf : (cx + sx) * kSqrtHalf;
  V sinChi = nu ? -(sx + cx) * kSqrtHalf : (sx - cx) * kSqrtHalf;
  V amp = sqrt(kTwoOverPi / xc);
  V r = second ? fma(p, sinChi, q * cosChi) : fma(p, cosChi, -(q * sinChi));
  return r * amp;
}

// J0 and J1 for |x| <= 0.6 and 1.2 by their series (for y0, y1 near 0).
V j0Series(const V &x) {
  V y = x * x * -0.25;
  V s = lit(x, 0.0);
  for (int k = 12; k >= 0; --k) {
    double f = 1;
    for (int i = 2; i <= k; ++i) f *= i;
    s = fma(s, y, 1.0 / (f * f));
  }
  return s;
}
V j1Series(const V &x) {
  V y = x * x * -0.25;
  V s = lit(x, 0.0);
  for (int k = 12; k >= 0; --k) {
    double f = 1;
    for (int i = 2; i <= k; ++i) f *= i;
    s = fma(s, y, 1.0 / (f * f * (k + 1)));
  }
  return s * (x * 0.5);
}

}  // namespace

V besselJ0(const V &x, bool fromF32) {
  V a = abs(x);
  V inFirst;
  V small = pieces(sel(a <= 8.0, a, lit(a, 8.0)), kJ0, inFirst);
  V r = sel(a <= 8.0, small, hankel(a, 0, false, fromF32));
  return sel(isInf(a), lit(a, 0.0), sel(isNan(x), x, r));
}

V besselJ1(const V &x, bool fromF32) {
  V a = abs(x);
  V inFirst;
  V ac = sel(a <= 8.0, a, lit(a, 8.0));
  V small = pieces(ac, kJ1, inFirst);
  small = sel(inFirst, small * ac, small);  // piece 0 interpolates j1(x) / x
  V r = sel(a <= 8.0, small, hankel(a, 1, false, fromF32));
  r = sel(isInf(a), lit(a, 0.0), r);
  return sel(isNan(x), x, sel(signBit(x), -r, r));  // odd
}

V besselY0(const V &x, bool fromF32) {
  V inFirst;
  V xc = sel((x > 0.0) & (x <= 8.0), x, lit(x, 8.0));
  V small = pieces(xc, kY0, inFirst);
  V lnTerm = (log(xc) * kTwoOverPi) * j0Series(sel(inFirst, xc, lit(x, 0.0)));
  small = sel(inFirst, small + lnTerm, small);
  V r = sel(x <= 8.0, small, hankel(x, 0, true, fromF32));
  r = sel(eq(x, 0.0), lit(x, -INFINITY), sel(x < 0.0, lit(x, NAN), r));
  return sel(eq(x, INFINITY), lit(x, 0.0), sel(isNan(x), x, r));
}

V besselY1(const V &x, bool fromF32) {
  V inFirst;
  V xc = sel((x > 0.0) & (x <= 8.0), x, lit(x, 8.0));
  V small = pieces(xc, kY1, inFirst);
  V x0 = sel(inFirst, xc, lit(x, 1.0));
  V first = (log(x0) * kTwoOverPi) * j1Series(x0) - kTwoOverPi / x0 + x0 * small;
  small = sel(inFirst, first, small);
  V r = sel(x <= 8.0, small, hankel(x, 1, true, fromF32));
  r = sel(eq(x, 0.0), lit(x, -INFINITY), sel(x < 0.0, lit(x, NAN), r));
  return sel(eq(x, INFINITY), lit(x, 0.0), sel(isNan(x), x, r));
}

}  // namespace tessera::frontend::ld
