// The placeholder that stands for every deleted account where something they made stays: petitions
// ("a former member"), comments, petition updates. Created by migration 0042; it has no identity
// account and its issuer matches no provider, so no token can ever act as it.
export const FORMER_MEMBER_ID = '00000000-0000-4000-8000-00000000dead';
