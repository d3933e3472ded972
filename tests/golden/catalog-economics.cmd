catalog economics
